import { rm } from 'node:fs/promises';
import path from 'node:path';
import {
  createDefaultAppData,
  columnSelectionErrors,
  normalizeAppData,
  validateAppData,
  type AppData,
  type EngineContext,
  type Problem,
  type Registry,
} from '../../src/engine';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import { isAdmin } from '../auth/auth-plugin';
import type { UserRecord } from '../auth/users-repository';
import { DatasetRefusal } from '../datasets/dataset-refusal';
import { isTokenKey } from '../outputs/output-detail';
import type { DatasetResolver } from '../datasets/dataset-resolver';
import type {
  ApplicationRecord,
  ApplicationsRepository,
  ApplicationWithData,
  OutputRecord,
} from './applications-repository';

export const APPLICATION_CREATED = 'Application created successfully';
/** The workspace's save toast (spec workspace.md), so the reply's message is the one it shows. */
export const APPLICATION_SAVED = 'Application data saved successfully';
export const APPLICATION_DELETED = 'Application deleted successfully';
export const INVALID_APP_DATA = 'Invalid application data';
export const UNKNOWN_PROBLEM = 'Unknown application problem';
export const UNKNOWN_SAMPLE = 'Unknown sample dataset';
export const APPLICATION_NOT_FOUND = 'Application not found';

/** What validation needs of a shipped sample dataset (server/samples' SampleCatalog has it). */
export interface SampleFacts {
  rows: number;
  columns: string[];
}
export interface SampleLookup {
  find(file: string): SampleFacts | undefined;
}

export interface FieldError {
  field: string;
  message: string;
}

export type Refusal = { ok: false; status: 400 | 404; detail: string; errors?: FieldError[] };
type Outcome<T> = ({ ok: true } & T) | Refusal;

/** The problem as an application names it (a stored id whose file is gone still answers). */
export interface ProblemRef {
  id: string;
  name: string;
  workspace: string;
}

export interface ApplicationSummary extends ApplicationRecord {
  app_problem: ProblemRef;
  category: { id: string; name: string };
}
export interface ApplicationDetail extends ApplicationSummary {
  app_data: Record<string, unknown>;
}

export interface CreatedApplication {
  id: number;
  app_name: string;
  /** The problem's name: a plain string in the create replies (spec platform-shell.md section 3). */
  app_problem: string;
  app_problem_id: string;
}

export interface CreateBody {
  app_name?: string;
  user_id: number;
  app_problem_id?: string;
}

const notFound = (detail: string): Refusal => ({ ok: false, status: 404, detail });

/**
 * The rules of applications: who may act (the owner or an admin; anyone else is told 404, as if it
 * did not exist), what a new application holds (the engine's defaults or a checked app_data), and
 * what a save may store (the engine's rules, row limits counted on the stored dataset). The routes
 * only carry these outcomes over HTTP.
 */
export class ApplicationsService {
  constructor(
    private readonly repository: ApplicationsRepository,
    private readonly registry: Registry,
    /** The shipped samples (server/samples' SampleCatalog): their rows and columns. */
    private readonly samples: SampleLookup,
    private readonly options: {
      dataDir: string;
      /** Uploads' and fetched URLs' rows and columns (server/datasets); without it only samples count. */
      datasets?: Pick<DatasetResolver, 'knownFacts'>;
      /** Stops the application's running outputs and removes their rows and files before it goes. */
      removeOutputs?: (applicationId: number) => Promise<void>;
    },
  ) {}

  /** Where an application's files live (uploaded datasets, run artifacts); deleted with it. */
  filesDir(applicationId: number): string {
    return path.join(this.options.dataDir, 'applications', String(applicationId));
  }

  async list(caller: UserRecord, userId: number): Promise<Outcome<{ applications: ApplicationSummary[] }>> {
    if (!(await this.mayActFor(caller, userId))) return notFound(USER_NOT_FOUND);
    const rows = await this.repository.listByUser(userId);
    return { ok: true, applications: rows.map((row) => this.summary(row)) };
  }

  async detail(caller: UserRecord, appId: number): Promise<Outcome<{ application: ApplicationDetail }>> {
    const app = await this.visible(caller, appId);
    if (!app) return notFound(APPLICATION_NOT_FOUND);
    return { ok: true, application: this.withData(app) };
  }

  async outputs(caller: UserRecord, appId: number): Promise<Outcome<{ outputs: OutputRecord[] }>> {
    const found = await this.repository.findWithOutputs(
      appId,
      (problemId) => this.registry.findProblem(problemId)?.predict !== undefined,
    );
    if (!found || (found.userId !== caller.id && !isAdmin(caller))) return notFound(APPLICATION_NOT_FOUND);
    return { ok: true, outputs: found.outputs };
  }

  /** A new application with the problem's default app_data. */
  async createBlank(
    caller: UserRecord,
    body: CreateBody & { status?: string },
  ): Promise<Outcome<{ application: CreatedApplication }>> {
    const checked = await this.checkCreate(caller, body);
    if (!checked.ok) return checked;
    const { problem, appName } = checked;
    const row = await this.repository.create({
      userId: body.user_id,
      appName,
      appProblemId: problem.id,
      status: body.status ?? 'active',
      appData: createDefaultAppData(problem),
    });
    return { ok: true, application: this.created(row, problem) };
  }

  /** A new application from given app_data (an example, or a copy): checked by the engine first. */
  async createWithData(
    caller: UserRecord,
    body: CreateBody & { app_data: Record<string, unknown> },
    options: { withoutTokens?: boolean } = {},
  ): Promise<Outcome<{ application: CreatedApplication }>> {
    const checked = await this.checkCreate(caller, body);
    if (!checked.ok) return checked;
    const { problem, appName } = checked;
    // The spec's shapes are accepted and stored in the problem file's.
    const given = options.withoutTokens ? withoutDeviceTokens(body.app_data) : body.app_data;
    const appData = normalizeAppData(problem, given as AppData);
    const refusal = await this.checkAppData(problem, appData, body.user_id);
    if (refusal) return refusal;
    const row = await this.repository.create({
      userId: body.user_id,
      appName,
      appProblemId: problem.id,
      status: 'active',
      appData,
    });
    return { ok: true, application: this.created(row, problem) };
  }

  /** Replaces app_data whole, or refuses it whole (nothing written) with each field's message. */
  async updateAppData(
    caller: UserRecord,
    body: { application_id: number; user_id: number; app_data: Record<string, unknown> },
  ): Promise<Outcome<{ application: ApplicationDetail }>> {
    const app = await this.visible(caller, body.application_id);
    if (!app || app.user_id !== body.user_id) return notFound(APPLICATION_NOT_FOUND);
    const problem = this.registry.findProblem(app.app_problem_id);
    if (!problem) return { ok: false, status: 400, detail: UNKNOWN_PROBLEM };
    // The spec's shapes are accepted and stored in the problem file's.
    const appData = normalizeAppData(problem, body.app_data as AppData);
    const refusal = await this.checkAppData(problem, appData, app.user_id, app.id);
    if (refusal) return refusal;
    const updated = await this.repository.updateAppData(app.id, appData);
    if (!updated) return notFound(APPLICATION_NOT_FOUND);
    return { ok: true, application: this.withData(updated) };
  }

  /** Deletes the application, its outputs (stopped first; rows and files) and its files under DATA_DIR. */
  async delete(caller: UserRecord, appId: number, userId: number): Promise<Outcome<object>> {
    const app = await this.visible(caller, appId);
    if (!app || app.user_id !== userId) return notFound(APPLICATION_NOT_FOUND);
    await this.options.removeOutputs?.(app.id);
    const deleted = await this.repository.delete(app.id);
    if (!deleted) return notFound(APPLICATION_NOT_FOUND);
    await rm(this.filesDir(app.id), { recursive: true, force: true });
    return { ok: true };
  }

  // ---- rules ----

  /** The caller is that user or an admin, and the user exists. */
  private async mayActFor(caller: UserRecord, userId: number): Promise<boolean> {
    if (caller.id === userId) return true;
    return isAdmin(caller) && (await this.repository.userExists(userId));
  }

  /** The application when the caller owns it or is an admin; null otherwise (told as 404). */
  private async visible(caller: UserRecord, appId: number): Promise<ApplicationWithData | null> {
    const app = await this.repository.find(appId);
    if (!app) return null;
    return app.user_id === caller.id || isAdmin(caller) ? app : null;
  }

  private async checkCreate(
    caller: UserRecord,
    body: CreateBody,
  ): Promise<Outcome<{ problem: Problem; appName: string }>> {
    if (!(await this.mayActFor(caller, body.user_id))) return notFound(USER_NOT_FOUND);
    const messages = this.registry.platform.messages;
    const appName = (body.app_name ?? '').trim();
    const problemId = (body.app_problem_id ?? '').trim();
    const missing = [...(appName ? [] : ['/app_name']), ...(problemId ? [] : ['/app_problem_id'])].map(
      (field) => ({ field, message: messages.fieldRequired }),
    );
    if (missing.length > 0) {
      return { ok: false, status: 400, detail: messages.applicationNameOrProblemMissing!, errors: missing };
    }
    const problem = this.registry.findProblem(problemId);
    if (!problem?.listed) {
      return {
        ok: false,
        status: 400,
        detail: UNKNOWN_PROBLEM,
        errors: [{ field: '/app_problem_id', message: UNKNOWN_PROBLEM }],
      };
    }
    // The dialog's form rules; the category is the problem's own (the body does not carry it).
    const errors = this.registry.validateAccountForm('create-application', {
      app_name: appName,
      category: problem.category,
      app_problem_id: problem.id,
    });
    if (errors.length > 0) return { ok: false, status: 400, detail: errors[0]!.message, errors };
    return { ok: true, problem, appName };
  }

  /**
   * The engine's rules on app_data, with the row count and columns of the dataset it names (never
   * the client's word for them): a shipped sample's, the owner's upload's, or a fetched URL's while
   * cached. A missing required value is an unfinished application, which may be saved; a value that
   * breaks a rule is refused.
   */
  private async checkAppData(
    problem: Problem,
    appData: Record<string, unknown>,
    ownerId: number,
    applicationId?: number,
  ): Promise<Refusal | null> {
    const dataset = await this.datasetContext(problem, appData, ownerId);
    if (!dataset.ok) {
      return { ok: false, status: 400, detail: INVALID_APP_DATA, errors: [dataset.error] };
    }
    const context: EngineContext = { ...dataset.context, applicationId };
    const result = validateAppData(problem, appData as AppData, context);
    // Selected columns against the named dataset's, whatever its kind (when its columns are known).
    const columns = context.columns
      ? columnSelectionErrors(problem, appData as AppData, context.columns)
      : [];
    const errors = [...result.errors, ...columns]
      .filter((error) => error.keyword !== 'required')
      .map((error) => ({ field: `/app_data${error.path}`, message: error.message }));
    if (errors.length === 0) return null;
    return { ok: false, status: 400, detail: INVALID_APP_DATA, errors };
  }

  private async datasetContext(
    problem: Problem,
    appData: Record<string, unknown>,
    ownerId: number,
  ): Promise<{ ok: true; context: EngineContext } | { ok: false; error: FieldError }> {
    const dataset = appData.dataset;
    if (typeof dataset !== 'object' || dataset === null || Array.isArray(dataset)) {
      return { ok: true, context: {} };
    }
    const { kind, sample, url, file } = dataset as Record<string, unknown>;
    // Brain tumor's training dataset is named by `file` (an upload's download URL).
    if (kind !== 'sample') {
      return url === undefined && file !== undefined
        ? this.ownDatasetContext(kind, file, ownerId, 'file')
        : this.ownDatasetContext(kind, url, ownerId);
    }
    const unknown = {
      ok: false as const,
      error: { field: '/app_data/dataset/sample', message: UNKNOWN_SAMPLE },
    };
    // A sample is one the problem declares, and its url (or file) names that sample's file.
    const declared = problem.dataset.samples.find((s) => s.id === sample);
    if (!declared) return unknown;
    const named = [url, file].find((v): v is string => typeof v === 'string' && v.length > 0);
    if (named !== undefined && path.posix.basename(named) !== declared.file) return unknown;
    const facts = this.samples.find(declared.file);
    if (facts) return { ok: true, context: { rowCount: facts.rows, columns: [...facts.columns] } };
    // A sample that is not a shipped table (the brain tumor .mat): the problem file's own count.
    const exampleDataset = problem.example.appData.dataset as { sample?: unknown } | undefined;
    const stated = exampleDataset?.sample === declared.id ? problem.example.context : undefined;
    return { ok: true, context: stated ? { ...stated } : {} };
  }

  /**
   * An uploaded or linked dataset's facts: the owner's upload record (someone else's upload is
   * refused naming the field, as if it did not exist), or a linked URL's last fetch while cached.
   * A link the engine's URL rule refuses, and a URL never fetched, give no facts.
   */
  private async ownDatasetContext(
    kind: unknown,
    url: unknown,
    ownerId: number,
    field: 'url' | 'file' = 'url',
  ): Promise<{ ok: true; context: EngineContext } | { ok: false; error: FieldError }> {
    const datasets = this.options.datasets;
    if (!datasets || typeof url !== 'string' || !url.trim()) return { ok: true, context: {} };
    if (kind === 'url' && !/^https?:\/\//i.test(url.trim())) return { ok: true, context: {} };
    try {
      const facts = await datasets.knownFacts({ id: ownerId }, url);
      return { ok: true, context: facts ? { rowCount: facts.rowCount, columns: facts.columns } : {} };
    } catch (error) {
      if (!(error instanceof DatasetRefusal)) throw error;
      return { ok: false, error: { field: `/app_data/dataset/${field}`, message: error.message } };
    }
  }

  // ---- shapes ----

  private problemRef(problemId: string): { problem: ProblemRef; category: { id: string; name: string } } {
    const problem = this.registry.findProblem(problemId);
    if (!problem) {
      return {
        problem: { id: problemId, name: problemId, workspace: 'development' },
        category: { id: '', name: '' },
      };
    }
    return {
      problem: { id: problem.id, name: problem.name, workspace: problem.workspace },
      category: { id: problem.category, name: problem.categoryInfo.name },
    };
  }

  private summary(row: ApplicationRecord): ApplicationSummary {
    const { problem, category } = this.problemRef(row.app_problem_id);
    return {
      id: row.id,
      app_name: row.app_name,
      app_problem_id: row.app_problem_id,
      app_problem: problem,
      category,
      user_id: row.user_id,
      status: row.status,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  private withData(row: ApplicationWithData): ApplicationDetail {
    return { ...this.summary(row), app_data: row.app_data };
  }

  private created(row: ApplicationRecord, problem: Problem): CreatedApplication {
    return { id: row.id, app_name: row.app_name, app_problem: problem.name, app_problem_id: problem.id };
  }
}

/**
 * A copy of app_data without the IBM token its owner typed (copy-to-user: the recipient sets their
 * own): every token key dropped, and the form's "Use Custom IBM Token" turned off beside it, since
 * the form requires a token while it is on.
 */
export function withoutDeviceTokens<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => withoutDeviceTokens(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  let dropped = false;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (isTokenKey(key)) {
      dropped = true;
      // a body-shaped field the schema requires stays, empty
      if (key === 'actual_quantum_device_token') copy[key] = null;
      continue;
    }
    copy[key] = withoutDeviceTokens(item);
  }
  if (dropped && 'check_custom_ibm_token' in copy) copy.check_custom_ibm_token = false;
  return copy as T;
}
