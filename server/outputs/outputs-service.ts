// Outputs: running an application (execute-job), stopping a run (stop-job), and an
// output's detail, record, status timeline, count and deletion. An output is a jobs row with an
// application_id. Owner only: someone else's output is "not found"; an admin may read any.

import path from 'node:path';
import type { FileStore } from '../storage/file-store';
import {
  getPointer,
  isPlainObject,
  joinPointer,
  mapJobExtension,
  mapJobRequest,
  matchingSpecQuery,
  sentValueErrors,
  validateAppData,
  validateJobBody,
  type AppData,
  type EngineContext,
  type Problem,
  type Registry,
} from '../../src/engine';
import type { ApplicationsRepository } from '../applications/applications-repository';
import { isAdmin } from '../auth/auth-plugin';
import type { UserRecord } from '../auth/users-repository';
import {
  datasetForWorker,
  datasetReferenceOf,
  type DatasetResolver,
  type ResolvedDataset,
} from '../datasets/dataset-resolver';
import { DatasetRefusal } from '../datasets/dataset-refusal';
import { isFinal, JobStatus } from '../jobs/job-states';
import type { JobRecord, JobsRepository } from '../jobs/jobs-repository';
import type { JobsService } from '../jobs/jobs-service';
import { isTokenKey, maskToken, redactDeviceTokens } from './device-token-redaction';
import { logsOf, modelPathOf, outputDetail, simplifiedAppData, timelineOf } from './output-detail';
import type { BackendLabeller } from './quantum-run';
import { backendNames } from './what-if-backend';

export const APPLICATION_RUNNING = 'Application is running.';
/** Spec section 8: 'Failed to execute the application! {message}'. */
export const EXECUTE_FAILED = 'Failed to execute the application!';
export const OUTPUT_NOT_FOUND = 'Output not found';
export const STOP_REQUESTED = 'Stop requested: the output records Manual Stop';
export const OUTPUT_DELETED = 'Output deleted successfully';
/** The seed every run gets unless told otherwise: the same body and seed give the same metrics. */
export const DEFAULT_SEED = 42;

export interface ExecuteError {
  path: string;
  field: string;
  label?: string;
  message: string;
}

export type ExecuteOutcome =
  { ok: true; outputId: number } | { ok: false; status: 400 | 404; message: string; errors?: ExecuteError[] };

type Found<T> = { ok: true; value: T } | { ok: false; status: 404; detail: string };

const notFound = { ok: false, status: 404, detail: OUTPUT_NOT_FOUND } as const;

const lastSegment = (pointer: string) => pointer.split('/').filter(Boolean).at(-1) ?? '';

/** The API name of a problem's job paths: the first segment of its execute-job path. */
export function apiNameOf(problem: Problem): string {
  return problem.job.request.path.split('/').filter(Boolean)[0] ?? problem.id;
}

/**
 * Whether a problem runs through POST /{api name}/execute-job/{...} (derived from its file): the four
 * financial problems' /{problem}/execute-job/{userId}, brain tumor's
 * /brain-tumor-classification/execute-job/{modelType}?user_id&start_idx&end_idx.
 */
export function runsThroughExecuteJob(problem: Problem): boolean {
  const { method, path: template } = problem.job.request;
  return method === 'POST' && /^\/[a-z0-9-]+\/execute-job\/\{[A-Za-z0-9_]+\}$/.test(template);
}

/** The names of the {placeholders} of a problem's execute-job path, in order. */
export function pathParamsOf(problem: Problem): string[] {
  return [...problem.job.request.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
}

/** The query keys of a problem's execute-job request (from its file's job.request.query). */
export function queryKeysOf(problem: Problem): string[] {
  return [...new Set((problem.job.request.query ?? []).map((entry) => lastSegment(entry.to)))];
}

/** The path and query keys that name the caller (mapped from the userId context). */
function userIdKeys(problem: Problem): { params: string[]; query: string[] } {
  const request = problem.job.request;
  const fromContext = (entries: typeof request.query) =>
    (entries ?? []).filter((e) => e.context === 'userId').map((e) => lastSegment(e.to));
  const mappedParams = new Set((request.params ?? []).map((e) => lastSegment(e.to)));
  return {
    // A placeholder no entry maps is filled from the context of the same name (userId).
    params: [
      ...fromContext(request.params),
      ...pathParamsOf(problem).filter((n) => n === 'userId' && !mappedParams.has(n)),
    ],
    query: fromContext(request.query),
  };
}

/** What the client sent to execute-job: path parameters and query values as strings, and the body. */
export interface ExecuteRequest {
  params: Record<string, string | number>;
  query: Record<string, string | number | undefined>;
  body: Record<string, unknown>;
}

/** The JSON pointer of the first place two JSON values differ ('' for the whole value), or null. */
export function firstDifference(expected: unknown, actual: unknown, at = ''): string | null {
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      const diff = firstDifference(expected[key], actual[key], joinPointer(at, key));
      if (diff !== null) return diff;
    }
    return null;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return at;
    for (let i = 0; i < expected.length; i++) {
      const diff = firstDifference(expected[i], actual[i], joinPointer(at, String(i)));
      if (diff !== null) return diff;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : at;
}

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value));

const stringValues = (values: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));

export class OutputsService {
  constructor(
    private readonly deps: {
      registry: Registry;
      applications: ApplicationsRepository;
      jobs: JobsService;
      jobsRepository: JobsRepository;
      datasets: Pick<DatasetResolver, 'resolve'>;
      dataDir: string;
      /** Where the outputs' files are published (a worker on another machine may have written them). */
      files: Pick<FileStore, 'removeFolder'>;
    },
  ) {}

  /** The problems that run through execute-job (the four financial ones and brain tumor). */
  executableProblems(): Problem[] {
    return this.deps.registry.problems.filter(runsThroughExecuteJob);
  }

  /**
   * Runs the application `body.id` of the caller: the path, query and body must be what the engine
   * derives from the stored app_data (with the resolved dataset's rows and columns), the body valid
   * against the job-body schema.
   */
  async execute(
    caller: UserRecord,
    problem: Problem,
    request: ExecuteRequest,
    /** The queue priority (server/jobs/job-queue.ts); users' runs keep the default. */
    options: { priority?: number } = {},
  ): Promise<ExecuteOutcome> {
    const { body } = request;
    const refuse = (message: string, errors?: ExecuteError[]): ExecuteOutcome => ({
      ok: false,
      status: 400,
      message: `${EXECUTE_FAILED} ${message}`,
      ...(errors && { errors }),
    });
    // Someone else's user id (in the path, or brain tumor's user_id query) is not found.
    const named = userIdKeys(problem);
    const claims = [
      ...named.params.map((key) => request.params[key]),
      ...named.query.map((key) => request.query[key]),
    ];
    if (claims.some((claim) => String(claim) !== String(caller.id))) {
      return { ok: false, status: 404, message: 'User not found' };
    }
    const appId = Number(body.id);
    if (!Number.isInteger(appId) || appId < 1) {
      return refuse('The body names no application (id).', [
        { path: '/id', field: 'id', message: 'is required' },
      ]);
    }
    const app = await this.deps.applications.find(appId);
    if (!app || app.user_id !== caller.id || app.app_problem_id !== problem.id) {
      return { ok: false, status: 404, message: 'Application not found' };
    }
    const appData = app.app_data as AppData;

    let dataset: ResolvedDataset | null = null;
    const reference = datasetReferenceOf(appData);
    if (reference) {
      try {
        dataset = await this.deps.datasets.resolve(caller, reference.value);
      } catch (error) {
        if (!(error instanceof DatasetRefusal)) throw error;
        return refuse(error.message, [
          { path: `/dataset/${reference.field}`, field: reference.field, message: error.message },
        ]);
      }
    }
    const context: EngineContext = {
      ...(dataset && { rowCount: dataset.rowCount, columns: dataset.columns }),
      applicationId: app.id,
      userId: caller.id,
    };
    const validation = validateAppData(problem, appData, context);
    if (!validation.valid) {
      const errors = validation.errors.map((e) => ({
        path: e.path,
        field: e.field,
        ...(e.label && { label: e.label }),
        message: e.message,
      }));
      const first = errors[0]!;
      return refuse(`${first.label ?? first.field}: ${first.message}`, errors);
    }
    const expectedRequest = mapJobRequest(problem, appData, context);
    // The path and the query must be the saved application's too (brain tumor: model type, range).
    const sentRequest = this.sentPathAndQuery(problem, request);
    // The spec client's fixed query (brain tumor's 1..10 / 1..100) stands for the saved one.
    const specQuery = matchingSpecQuery(problem, appData, sentRequest.query);
    if (specQuery) {
      for (const key of Object.keys(specQuery)) {
        const saved = expectedRequest.query[key];
        if (saved === undefined) delete sentRequest.query[key];
        else sentRequest.query[key] = String(saved);
      }
    }
    const requestDifference = firstDifference(
      { path: expectedRequest.path, query: stringValues(expectedRequest.query) },
      sentRequest,
    );
    if (requestDifference !== null) {
      const field = lastSegment(requestDifference) || 'path';
      const sent = show(getPointer(sentRequest, requestDifference));
      const saved = show(
        getPointer(
          { path: expectedRequest.path, query: stringValues(expectedRequest.query) },
          requestDifference,
        ),
      );
      const message = `The request ${requestDifference.startsWith('/query') ? `query ${field}` : 'path'} does not match the saved application (sent ${sent}, the saved application gives ${saved}); save the application and run it again.`;
      return refuse(message, [{ path: requestDifference, field, message }]);
    }
    const expected = expectedRequest.body;
    const difference = firstDifference(expected, body);
    if (difference !== null) {
      const field = lastSegment(difference) || 'body';
      // A refusal at the token names the field but never echoes either token.
      const shown = (value: unknown) =>
        isTokenKey(field) && typeof value === 'string' && value
          ? show(maskToken(value))
          : show(redactDeviceTokens(value));
      const sent = shown(difference ? getPointer(body, difference) : body);
      const saved = shown(difference ? getPointer(expected, difference) : expected);
      const mismatch = `The request body does not match the saved application at ${difference || '/'} (sent ${sent}, the saved application gives ${saved}); save the application and run it again.`;
      // A sent value that breaks a form rule is refused first in the problem file's words.
      const broken = difference
        ? sentValueErrors(problem, appData, difference, getPointer(body, difference), context)
        : [];
      const message = [...broken.map((e) => e.message), mismatch].join('; ');
      return refuse(message, [
        ...broken.map((e) => ({ path: difference, field, message: e.message })),
        { path: difference, field, message: mismatch },
      ]);
    }
    const bodyCheck = validateJobBody(problem, expected);
    if (!bodyCheck.valid) {
      const errors = bodyCheck.errors.map((e) => ({ path: e.path, field: e.field, message: e.message }));
      return refuse(`${errors[0]!.path}: ${errors[0]!.message}`, errors);
    }
    const extension = dataset
      ? {
          dataset: datasetForWorker(dataset),
          ...mapJobExtension(problem, appData, context),
          seed: DEFAULT_SEED,
        }
      : {};
    const job = await this.deps.jobs.submit(caller, problem.id, expected, {
      applicationId: app.id,
      appData,
      extension,
      name: `${app.app_name} #{id}`,
      ...(options.priority !== undefined && { priority: options.priority }),
    });
    if (specQuery) {
      const sent = Object.entries(specQuery).map(([key, value]) => `${key} ${String(value)}`);
      const saved = Object.keys(specQuery).map((key) => `${key} ${String(expectedRequest.query[key])}`);
      await this.deps.jobsRepository.appendEvent(job.id, 'log', {
        level: 'info',
        message: `The request's query (${sent.join(', ')}) is the specification client's fixed one; the saved application's (${saved.join(', ')}) is used.`,
      });
    }
    return { ok: true, outputId: job.id };
  }

  /**
   * Runs a saved application as its Run button does, with the request the engine derives from its
   * app_data (the server's own background runs: the landing page's examples).
   */
  async runSaved(
    caller: UserRecord,
    problem: Problem,
    appId: number,
    options: { priority?: number } = {},
  ): Promise<ExecuteOutcome> {
    const app = await this.deps.applications.find(appId);
    if (!app || app.user_id !== caller.id)
      return { ok: false, status: 404, message: 'Application not found' };
    const appData = app.app_data as AppData;
    let context: EngineContext = { applicationId: app.id, userId: caller.id };
    const reference = datasetReferenceOf(appData);
    if (reference) {
      try {
        const dataset = await this.deps.datasets.resolve(caller, reference.value);
        context = { ...context, rowCount: dataset.rowCount, columns: dataset.columns };
      } catch (error) {
        if (!(error instanceof DatasetRefusal)) throw error;
        return { ok: false, status: 400, message: `${EXECUTE_FAILED} ${error.message}` };
      }
    }
    const derived = mapJobRequest(problem, appData, context);
    const template = problem.job.request.path.split('/');
    const filled = derived.path.split('/');
    const params: Record<string, string> = {};
    template.forEach((segment, index) => {
      const name = /^\{([A-Za-z0-9_]+)\}$/.exec(segment)?.[1];
      if (name) params[name] = decodeURIComponent(filled[index] ?? '');
    });
    const query = Object.fromEntries(
      Object.entries(derived.query).map(([key, value]) => [key, String(value)]),
    );
    return this.execute(caller, problem, { params, query, body: derived.body }, options);
  }

  /** The request's path (from the problem's template and the sent parameters) and its query keys. */
  private sentPathAndQuery(problem: Problem, request: ExecuteRequest) {
    const path = problem.job.request.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_whole, name: string) =>
      encodeURIComponent(String(request.params[name] ?? '')),
    );
    const query: Record<string, string> = {};
    for (const key of queryKeysOf(problem)) {
      const value = request.query[key];
      if (value !== undefined) query[key] = String(value);
    }
    return { path, query };
  }

  /** The output when the caller may read it (owner or admin). */
  private async readable(caller: UserRecord, outputId: number): Promise<JobRecord | null> {
    const job = await this.deps.jobsRepository.find(outputId);
    if (!job || job.application_id === null) return null;
    return job.owner_id === caller.id || isAdmin(caller) ? job : null;
  }

  /** The output when the caller owns it (stop, delete). */
  private async owned(caller: UserRecord, outputId: number): Promise<JobRecord | null> {
    const job = await this.readable(caller, outputId);
    return job && job.owner_id === caller.id ? job : null;
  }

  async find(caller: UserRecord, outputId: number): Promise<Found<JobRecord>> {
    const job = await this.readable(caller, outputId);
    return job ? { ok: true, value: job } : notFound;
  }

  async detail(caller: UserRecord, outputId: number) {
    const job = await this.readable(caller, outputId);
    if (!job) return notFound;
    const events = await this.deps.jobs.events(job.id);
    return { ok: true as const, value: outputDetail(job, events, this.backendLabeller(job.kind)) };
  }

  /** The problem's form labels of its noise models and devices ('IBM Kyiv (snapshot)' for fake_kyiv). */
  private backendLabeller(problemId: string): BackendLabeller {
    const problem = this.deps.registry.findProblem(problemId);
    if (!problem) return (name) => name;
    const { noiseModels, devices } = backendNames(problem);
    const labels = new Map([...noiseModels, ...devices].map((choice) => [choice.name, choice.label]));
    return (name) => labels.get(name) ?? name;
  }

  async record(caller: UserRecord, outputId: number) {
    const job = await this.readable(caller, outputId);
    if (!job) return notFound;
    return {
      ok: true as const,
      value: {
        trained_model_path: modelPathOf(job),
        application_id: Number(job.application_id),
        app_data: redactDeviceTokens(job.app_data),
        output_logs: logsOf(await this.deps.jobs.events(job.id)),
        simplified_app_data: redactDeviceTokens(simplifiedAppData(job.app_data)),
      },
    };
  }

  async timeline(caller: UserRecord, outputId: number) {
    const job = await this.readable(caller, outputId);
    if (!job) return notFound;
    return { ok: true as const, value: timelineOf(await this.deps.jobs.events(job.id)) };
  }

  /** An application's outputs: how many, and how many are not final yet (Ongoing). */
  async count(caller: UserRecord, applicationId: number) {
    const app = await this.deps.applications.find(applicationId);
    if (!app || (app.user_id !== caller.id && !isAdmin(caller))) {
      return { ok: false as const, status: 404 as const, detail: 'Application not found' };
    }
    const outputs = await this.deps.applications.listOutputs(app.id);
    return {
      ok: true as const,
      value: { total: outputs.length, ongoing: outputs.filter((o) => !isFinal(o.status)).length },
    };
  }

  /** An application's outputs as runs to compare (settings, metrics, baseline, losses); owner or admin. */
  async runs(caller: UserRecord, applicationId: number) {
    const app = await this.deps.applications.find(applicationId);
    if (!app || (app.user_id !== caller.id && !isAdmin(caller))) {
      return { ok: false as const, status: 404 as const, detail: 'Application not found' };
    }
    return { ok: true as const, value: await this.deps.applications.listRuns(app.id) };
  }

  /** Stops the caller's output of this problem (a queued one at once; a running one is killed). */
  async stop(caller: UserRecord, problem: Problem, outputId: number) {
    const job = await this.owned(caller, outputId);
    if (!job || job.kind !== problem.id) return notFound;
    if (!isFinal(job.status)) await this.deps.jobs.runner.stop(job);
    return { ok: true as const, value: job };
  }

  /** Stops it if it runs (and waits for its end), deletes the row, its events and its files. */
  async delete(caller: UserRecord, outputId: number) {
    const job = await this.owned(caller, outputId);
    if (!job) return notFound;
    await this.remove(job);
    return { ok: true as const, value: job };
  }

  /** Before its application is deleted: every output stopped, its row and its files (local and bucket) gone. */
  async removeAllOfApplication(applicationId: number): Promise<void> {
    for (const job of await this.deps.jobsRepository.listByApplication(applicationId)) await this.remove(job);
  }

  private async remove(job: JobRecord): Promise<void> {
    if (!isFinal(job.status)) {
      await this.deps.jobs.runner.stop(job);
      await this.waitForFinal(job.id, 20_000);
    }
    await this.deps.jobsRepository.delete(job.id);
    await this.deps.files.removeFolder(`outputs/${job.id}`);
  }

  outputDir(outputId: number): string {
    return path.join(this.deps.dataDir, 'outputs', String(outputId));
  }

  private async waitForFinal(jobId: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const job = await this.deps.jobsRepository.find(jobId);
      if (!job || isFinal(job.status)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Still not final (a worker on another machine that does not answer): recorded as stopped.
    const reason = 'Deleted while running';
    await this.deps.jobs.runner.transition(
      jobId,
      [JobStatus.queued, JobStatus.running],
      JobStatus.manualStop,
      {
        reason,
        error: reason,
      },
    );
  }
}
