import type { paths } from '../../generated/api';
import type { ChartSpec } from '../../generated/worker-contract';
import { ApiError, apiFetch, authHeaders, messageOf } from './client';
import { followEventStream } from './event-stream';
import type { JobEvent, JobStatus } from './jobs';
import { reportOutputStatus } from './output-status';

/**
 * The output calls of issue #10 (spec workspace.md section 7): run an application, an output's detail,
 * its live stream, stop, the dataset upload and inference. Wire shapes come from the server's OpenAPI
 * document (src/generated/api.ts).
 */

type Ok<P extends keyof paths, M extends 'get' | 'post', S extends number> = paths[P][M] extends {
  responses: Record<S, { content: { 'application/json': infer B } }>;
}
  ? B
  : never;
type DataOf<B> = B extends { data: infer D } ? D : never;
/** The routes every problem has under its own API name (/api/{problem}/execute-job/...), one shape for all. */
export type ProblemRoute<Tail extends string> = Extract<keyof paths, `/api/${string}/${Tail}`>;

export type OutputStatus = JobStatus;
export type { ChartSpec, JobEvent };

type WireDetail = DataOf<Ok<'/api/application-outputs/{outputId}/detail', 'get', 200>>;
/**
 * GET /application-outputs/{outputId}/detail. Its status is one of the job statuses and its charts are
 * worker protocol charts (the server checked every chart line against that schema), typed so here.
 */
export type OutputDetail = Omit<WireDetail, 'status' | 'charts'> & {
  status: OutputStatus;
  charts: ChartSpec[];
};
export type OutputLog = OutputDetail['output_logs'][number];

/** POST /{problem}/inference/{userId}/{applicationId}: actual and predicted (null for an empty cell). */
export type InferenceResult = DataOf<Ok<ProblemRoute<'inference/{userId}/{applicationId}'>, 'post', 200>>;
type ExecuteReply = Ok<ProblemRoute<'execute-job/{userId}'>, 'post', 201>;
type UploadReply = Ok<'/api/upload/{userName}/{userEmail}', 'post', 201>;

interface Reply<T> {
  success: boolean;
  message?: string;
  data: T;
}

/** Spec section 8's failure texts of these calls. */
export const RUN_FAILED = 'Failed to execute the application!';
export const OUTPUT_FAILED = 'Failed to fetch single output data';
export const RUNNING = 'Application is running.';

/** The refusal text of a reply: the route's `message` (execute-job, upload) or the one envelope's `detail`. */
function refusalText(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.body as { message?: unknown; detail?: unknown } | null;
    if (body && typeof body.message === 'string' && body.message) return body.message;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * POST /{problem}/execute-job/{userId} with the engine's body. Refusals reject with an Error whose
 * message is 'Failed to execute the application! {message}' (spec section 8); the server's own message
 * already starts with those words when it refuses, so they are not doubled.
 */
export async function executeJob(
  path: string,
  body: Record<string, unknown>,
): Promise<{ output_id: number }> {
  try {
    const reply = await apiFetch<ExecuteReply>(path, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return reply.data;
  } catch (error) {
    const text = refusalText(error);
    throw new Error(text.startsWith(RUN_FAILED) ? text : `${RUN_FAILED} ${text}`);
  }
}

export async function getOutputDetail(outputId: number): Promise<OutputDetail> {
  try {
    const detail = (await apiFetch<Reply<OutputDetail>>(`/application-outputs/${outputId}/detail`)).data;
    reportOutputStatus(outputId, detail.status);
    return detail;
  } catch (error) {
    if (error instanceof ApiError)
      throw new ApiError(`${OUTPUT_FAILED}: ${error.message}`, error.status, error.body);
    throw error;
  }
}

/** DELETE /application-outputs/{outputId}/delete: the output, its events and files (stopped first if it runs). */
export async function deleteOutput(outputId: number): Promise<void> {
  await apiFetch(`/application-outputs/${outputId}/delete`, { method: 'DELETE' });
}

/** POST /{problem}/stop-job/{outputId} (every problem has one). */
export async function stopOutput(problem: string, outputId: number): Promise<void> {
  await apiFetch(`/${encodeURIComponent(problem)}/stop-job/${outputId}`, { method: 'POST' });
}

/** The output's live events (progress, logs, metrics, charts, status) until its stream ends. */
export function followOutput(
  outputId: number,
  onEvent: (event: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  return followEventStream<JobEvent>(
    `/application-outputs/${outputId}/stream`,
    (event) => {
      onEvent(event);
      const { status } = event.payload as { status?: unknown };
      if (event.type === 'status' && typeof status === 'string') reportOutputStatus(outputId, status);
    },
    signal,
  );
}

/**
 * The spec's wording for a failed prediction or run call: 'HTTP error! status: {code}, details: {text}'
 * (section 7), the text being the reply's message or detail, else its body as sent.
 */
export function httpErrorText(status: number, text: string): string {
  let details = text;
  try {
    const body = JSON.parse(text) as { message?: unknown; detail?: unknown };
    if (typeof body.detail === 'string' && body.detail) details = body.detail;
    else if (typeof body.message === 'string' && body.message) details = body.message;
  } catch {
    // not JSON: the text as it came
  }
  return `HTTP error! status: ${status}, details: ${details}`;
}

async function postRaw<T>(path: string, init: RequestInit): Promise<T> {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(authHeaders())) headers.set(name, value);
  const response = await fetch(`/api${path}`, { ...init, headers });
  const text = await response.text();
  if (!response.ok) throw new ApiError(httpErrorText(response.status, text), response.status, text);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ApiError(messageOf(null, response.status), response.status, text);
  }
}

/** POST /upload/{userName}/{userEmail}: a CSV for inference; answers its download url. */
export async function uploadDataset(user: { name: string; email: string }, file: File): Promise<string> {
  const form = new FormData();
  form.append('file', file, file.name);
  const reply = await postRaw<UploadReply>(
    `/upload/${encodeURIComponent(user.name)}/${encodeURIComponent(user.email)}`,
    { method: 'POST', body: form },
  );
  return reply.url;
}

/** POST /{problem}/inference/{userId}/{applicationId} {features, data_url, output_id}. */
export async function runInference(
  problem: string,
  userId: number,
  applicationId: number,
  body: { features: string[]; data_url: string; output_id: number },
): Promise<InferenceResult> {
  const reply = await postRaw<Reply<InferenceResult>>(
    `/${encodeURIComponent(problem)}/inference/${userId}/${applicationId}`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return reply.data;
}
