import platformJson from '../../../schemas/platform.json';
import { NOT_LOGGED_IN } from '../session/not-logged-in';
import type { paths } from '../../generated/api';
import { apiFetch, ApiError } from './client';
import { reportOutputStatus } from './output-status';

/**
 * The applications API (spec platform-shell.md section 7) as the browser calls it. The wire shapes
 * come from the server's OpenAPI document (src/generated/api.ts), like the other features' calls.
 */
type Json<
  P extends keyof paths,
  M extends 'get' | 'post' | 'put' | 'delete',
  S extends number,
> = paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer B } }> } ? B : never;
type DataOf<B> = B extends { data: infer D } ? D : never;

/** GET /application-categories/all: a category with its listed problems. */
export type Category = DataOf<Json<'/api/application-categories/all', 'get', 200>>[number];

/** GET /applications/{userId}/all: one of the user's applications. */
export type ApplicationSummary = DataOf<Json<'/api/applications/{userId}/all', 'get', 200>>[number];

/** The problem of an application: its name and workspace route ('development' or 'developmentbio'). */
export type ProblemRef = ApplicationSummary['app_problem'];

/** GET /applications/{appId}/detail: the summary with its app_data. */
export type ApplicationDetail = DataOf<Json<'/api/applications/{appId}/detail', 'get', 200>>;

/** The create replies: app_problem is the problem's name (a plain string, as the spec says). */
export type CreatedApplication = DataOf<Json<'/api/applications/create-blank', 'post', 201>>;

/** GET /application-outputs/{applicationId}/all: one output (a job run of the application). */
export type OutputSummary = DataOf<Json<'/api/application-outputs/{applicationId}/all', 'get', 200>>[number];

interface Reply<T> {
  success: boolean;
  message?: string;
  data: T;
}

const json = (method: string, body: unknown): RequestInit => ({ method, body: JSON.stringify(body) });

/**
 * Spec section 8's failure texts, one per call: a refused or failed call rejects with an ApiError whose
 * message is '{failure}: {server detail}' (status 0 when the server was not reached), so every caller
 * shows the same words.
 */
export const FAILURES = {
  categories: 'Get application categories failed',
  create: 'Create application failed',
  copy: 'Copy application failed',
  list: 'Get applications failed',
  detail: 'Get application failed',
  save: 'Save application failed',
  delete: 'Delete application failed',
  outputs: 'Get application outputs failed',
} as const;

async function call<T>(failure: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError)
      throw new ApiError(`${failure}: ${error.message}`, error.status, error.body);
    throw new ApiError(failure, 0, null);
  }
}

/** Spec section 5: a create call is refused in the browser when the name or the problem id is empty. */
export const MISSING_NAME_OR_PROBLEM: string = platformJson.messages.applicationNameOrProblemMissing;

function refuseMissing(body: { app_name: string; app_problem_id: string }): void {
  if (!body.app_name.trim() || !body.app_problem_id.trim())
    throw new ApiError(MISSING_NAME_OR_PROBLEM, 0, null);
}

/** Spec section 8: a call that needs the signed-in user's id refuses without one. */
export function signedInUserId(user: { id: number } | null | undefined): number {
  if (!user) throw new Error(NOT_LOGGED_IN);
  return user.id;
}

export async function getCategories(): Promise<Category[]> {
  return call(
    FAILURES.categories,
    async () => (await apiFetch<Reply<Category[]>>('/application-categories/all')).data,
  );
}

export async function createBlankApplication(body: {
  app_name: string;
  user_id: number;
  app_problem_id: string;
}): Promise<CreatedApplication> {
  refuseMissing(body);
  const sent = json('POST', { ...body, status: 'active' });
  return call(
    FAILURES.create,
    async () => (await apiFetch<Reply<CreatedApplication>>('/applications/create-blank', sent)).data,
  );
}

export interface ApplicationCopy {
  app_name: string;
  user_id: number;
  app_problem_id: string;
  app_data: Record<string, unknown>;
}

export async function createFromExample(body: ApplicationCopy): Promise<CreatedApplication> {
  refuseMissing(body);
  const sent = json('POST', body);
  return call(
    FAILURES.create,
    async () => (await apiFetch<Reply<CreatedApplication>>('/applications/create-from-example', sent)).data,
  );
}

export async function copyToUser(body: ApplicationCopy): Promise<CreatedApplication> {
  const sent = json('POST', body);
  return call(
    FAILURES.copy,
    async () => (await apiFetch<Reply<CreatedApplication>>('/applications/copy-to-user', sent)).data,
  );
}

export async function listApplications(userId: number): Promise<ApplicationSummary[]> {
  return call(
    FAILURES.list,
    async () => (await apiFetch<Reply<ApplicationSummary[]>>(`/applications/${userId}/all`)).data,
  );
}

export async function getApplication(appId: number): Promise<ApplicationDetail> {
  return call(
    FAILURES.detail,
    async () => (await apiFetch<Reply<ApplicationDetail>>(`/applications/${appId}/detail`)).data,
  );
}

export async function updateAppData(body: {
  application_id: number;
  user_id: number;
  app_data: Record<string, unknown>;
}): Promise<ApplicationDetail> {
  const sent = json('PUT', body);
  return call(
    FAILURES.save,
    async () => (await apiFetch<Reply<ApplicationDetail>>('/applications/update-app-data', sent)).data,
  );
}

export async function deleteApplication(appId: number, userId: number): Promise<void> {
  await call(FAILURES.delete, () =>
    apiFetch(`/applications/${appId}/delete-by-user/${userId}`, { method: 'DELETE' }),
  );
}

export async function listOutputs(applicationId: number): Promise<OutputSummary[]> {
  return call(FAILURES.outputs, async () => {
    const outputs = (await apiFetch<Reply<OutputSummary[]>>(`/application-outputs/${applicationId}/all`))
      .data;
    for (const output of outputs) reportOutputStatus(output.id, output.status);
    return outputs;
  });
}

/** GET /application-outputs/{applicationId}/count: how many outputs the application has (the tab badge). */
export type OutputCount = DataOf<Json<'/api/application-outputs/{applicationId}/count', 'get', 200>>;

export async function countOutputs(applicationId: number): Promise<OutputCount> {
  return call(
    FAILURES.outputs,
    async () => (await apiFetch<Reply<OutputCount>>(`/application-outputs/${applicationId}/count`)).data,
  );
}
