import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Problem, Registry } from '../../src/engine';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import type { ApplicationsRepository } from '../applications/applications-repository';
import { APPLICATION_NOT_FOUND } from '../applications/applications-service';
import type { UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { JobStatus } from '../jobs/job-states';
import { jobResultOf, latestTrainedOutput } from '../jobs/job-result';
import type { JobRecord } from '../jobs/jobs-repository';
import { callWorker, endWorkerCalls, workerFailureReason, type WorkerCall } from '../jobs/worker-call';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';

export const OUTPUT_NOT_FOUND = 'Output not found';
export const NO_TRAINED_MODEL = 'No trained model: run the application first';
export const TOO_MANY_INFERENCES =
  'Too many inferences are running at the moment; try again in a few seconds';

/** What inference needs of a resolved dataset (server/datasets/dataset-resolver.ts has it). */
export interface InferenceDataset {
  /** Absolute path of the CSV file the worker reads. */
  path: string;
  /** Its file store key and sha256, by which a worker reads a file this machine lacks (none: a sample). */
  key?: string | null;
  sha256?: string;
  rowCount: number;
  columns: string[];
}

/** Resolves a data_url for its owner (DatasetResolver); throws a refusal (plain words) when it cannot. */
export interface InferenceDatasets {
  resolve(owner: { id: number }, url: string): Promise<InferenceDataset>;
}

export interface InferenceBody {
  /** Missing or empty: refused with the problem file's noFeature message. */
  features?: string[];
  /** Missing or blank: refused with the problem file's missing-file message. */
  data_url?: string;
  output_id?: number;
}

export type InferenceData = {
  /** The observed values of the model's target, paired with `predicted` (null: an empty cell). */
  actual: (number | null)[];
  predicted: (number | null)[];
  /** The output whose trained model answered. */
  output_id: number;
  /** The dataset's data rows (the header not counted). */
  rows: number;
};

interface FieldError {
  field: string;
  message: string;
}

export type InferenceRefusal = {
  ok: false;
  status: 400 | 404 | 429 | 502;
  detail: string;
  errors?: FieldError[];
  retryAfter?: number;
};
export type InferenceOutcome = { ok: true; data: InferenceData } | InferenceRefusal;

export interface InferenceOptions {
  /** DATA_DIR/outputs: a run's model lives in `{outputsDir}/{outputId}`. */
  outputsDir: string;
  /** A worker that has not answered by then is killed and the request refused (default 120 s). */
  timeoutSeconds?: number;
  /** Inferences running at once in this process; more are refused with 429 (default 4). */
  maxConcurrent?: number;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
const DEFAULT_MAX_CONCURRENT = 4;
const RETRY_AFTER_SECONDS = 5;
const MAX_NAMES_LISTED = 20;

/** The worker's fields (its request) as the fields of the HTTP body the client sent. */
const WORKER_FIELDS: Record<string, string> = {
  '/features': '/features',
  '/dataset/path': '/data_url',
  '/dataset': '/data_url',
  '/model_dir': '/output_id',
  '/problem': '/output_id',
};

const names = (list: string[]) =>
  list.slice(0, MAX_NAMES_LISTED).join(', ') +
  (list.length > MAX_NAMES_LISTED ? ` and ${list.length - MAX_NAMES_LISTED} more` : '');

/** "A, B" column lists as the worker words them ('Missing features: High, Low (...)'). */
export function missingFeaturesMessage(missing: string[], columns: string[]): string {
  return `Missing features: ${names(missing)} (the CSV's columns are ${names(columns)})`;
}

interface ModelOutput {
  id: number;
  application_id: number | string;
  status: string;
  trained_model_path: string | null;
}

/**
 * Inference with an application's trained model (spec workspace.md section 7): the
 * caller's own application, one of its Completed outputs that saved a model (the given one, else the
 * latest), a dataset resolved for the caller, and the worker's `infer` command in its own process
 * (stop and crash isolation as for jobs). Refusals name the field; bad input is never a 500.
 */
export class InferenceService {
  private readonly running = new Set<WorkerHandle>();
  private closed = false;

  constructor(
    private readonly deps: {
      db: Database;
      applications: ApplicationsRepository;
      registry: Registry;
      datasets: InferenceDatasets;
      launcher: WorkerLauncher;
      log: FastifyBaseLogger;
    },
    private readonly options: InferenceOptions,
  ) {}

  /** The problems whose files offer inference (an `inference` section), in registry order. */
  problems(): Problem[] {
    return this.deps.registry.problems.filter((problem) => problem.inference !== undefined);
  }

  async infer(
    caller: UserRecord,
    problemId: string,
    userId: number,
    applicationId: number,
    body: InferenceBody,
  ): Promise<InferenceOutcome> {
    const problem = this.deps.registry.findProblem(problemId);
    if (!problem?.inference) return { ok: false, status: 404, detail: 'Not found' };
    if (caller.id !== userId) return { ok: false, status: 404, detail: USER_NOT_FOUND };
    const app = await this.deps.applications.find(applicationId);
    if (!app || app.user_id !== caller.id || app.app_problem_id !== problem.id) {
      return { ok: false, status: 404, detail: APPLICATION_NOT_FOUND };
    }

    const messages = problem.inference.messages;
    const features = [
      ...new Set((body.features ?? []).map((feature) => feature.replace(/\r/g, '').trim()).filter(Boolean)),
    ];
    if (features.length === 0) {
      const message = messages.noFeature;
      return { ok: false, status: 400, detail: message, errors: [{ field: '/features', message }] };
    }
    const url = (body.data_url ?? '').trim();
    if (!url) {
      const message = problem.inference.file.messages.missing;
      return { ok: false, status: 400, detail: message, errors: [{ field: '/data_url', message }] };
    }

    const output = await this.modelOutput(app.id, body.output_id);
    if (!output.ok) return output;

    let dataset: InferenceDataset;
    try {
      dataset = await this.deps.datasets.resolve(caller, url);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, status: 400, detail: message, errors: [{ field: '/data_url', message }] };
    }
    const absent = features.filter((feature) => !dataset.columns.includes(feature));
    if (absent.length > 0) {
      const message = missingFeaturesMessage(absent, dataset.columns);
      return { ok: false, status: 400, detail: message, errors: [{ field: '/features', message }] };
    }

    if (this.closed || this.running.size >= (this.options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT)) {
      return { ok: false, status: 429, detail: TOO_MANY_INFERENCES, retryAfter: RETRY_AFTER_SECONDS };
    }
    return this.runWorker({
      problem: problem.id,
      model_dir: path.join(this.options.outputsDir, String(output.id)),
      // The worker fetches the model folder (model_dir's key under DATA_DIR) and the dataset from the
      // file store when this machine lacks them: the model may have been trained on another machine.
      dataset: {
        path: dataset.path,
        ...(dataset.key ? { key: dataset.key } : {}),
        ...(dataset.sha256 ? { sha256: dataset.sha256 } : {}),
      },
      features,
      outputId: output.id,
    });
  }

  /** Kills the inferences under way (server shutdown); later requests are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await endWorkerCalls(this.running);
  }

  /** The given output of the application, or its latest Completed one with a trained model. */
  private async modelOutput(
    applicationId: number,
    outputId: number | undefined,
  ): Promise<({ ok: true } & ModelOutput) | InferenceRefusal> {
    if (outputId !== undefined) {
      const { rows } = await this.deps.db.query<
        Omit<ModelOutput, 'trained_model_path'> & Pick<JobRecord, 'result'>
      >(`select id, application_id, status, result from jobs where id = $1`, [outputId]);
      const row = rows[0];
      const output = row && {
        id: row.id,
        application_id: row.application_id,
        status: row.status,
        trained_model_path: jobResultOf(row)?.trained_model_path ?? null,
      };
      if (!output || Number(output.application_id) !== applicationId) {
        return {
          ok: false,
          status: 404,
          detail: OUTPUT_NOT_FOUND,
          errors: [{ field: '/output_id', message: OUTPUT_NOT_FOUND }],
        };
      }
      if (output.status !== JobStatus.completed || !output.trained_model_path) {
        const detail =
          output.status === JobStatus.completed
            ? `No trained model: output ${output.id} saved none`
            : `No trained model: output ${output.id} is ${output.status === JobStatus.queued || output.status === JobStatus.running ? 'still running' : output.status}`;
        return { ok: false, status: 400, detail, errors: [{ field: '/output_id', message: detail }] };
      }
      return { ok: true, ...output, id: Number(output.id) };
    }
    const latest = await latestTrainedOutput(this.deps.db, applicationId);
    if (!latest) {
      return {
        ok: false,
        status: 400,
        detail: NO_TRAINED_MODEL,
        errors: [{ field: '/output_id', message: NO_TRAINED_MODEL }],
      };
    }
    return {
      ok: true,
      id: latest.id,
      application_id: applicationId,
      status: JobStatus.completed,
      trained_model_path: latest.result.trained_model_path,
    };
  }

  private async runWorker(request: {
    problem: string;
    model_dir: string;
    dataset: { path: string; key?: string; sha256?: string };
    features: string[];
    outputId: number;
  }): Promise<InferenceOutcome> {
    const { outputId, ...input } = request;
    const call = await callWorker(this.deps.launcher, this.running, {
      command: 'infer',
      input,
      timeoutSeconds: this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    });
    return this.outcome(call, outputId);
  }

  private outcome(call: WorkerCall, outputId: number): InferenceOutcome {
    const { exit, result, failure } = call;
    if (call.timedOut) {
      return {
        ok: false,
        status: 502,
        detail: `The inference took longer than ${call.timeoutSeconds} s and was stopped`,
      };
    }
    if (exit.code === 0 && result) {
      const data = result as { actual?: unknown; predicted?: unknown; rows?: unknown };
      if (Array.isArray(data.actual) && Array.isArray(data.predicted) && typeof data.rows === 'number') {
        return {
          ok: true,
          data: {
            actual: data.actual as (number | null)[],
            predicted: data.predicted as (number | null)[],
            output_id: outputId,
            rows: data.rows,
          },
        };
      }
    }
    if (failure?.kind === 'validation') {
      const field = (failure.field && WORKER_FIELDS[failure.field]) ?? '/features';
      return {
        ok: false,
        status: 400,
        detail: failure.message,
        errors: [{ field, message: failure.message }],
      };
    }
    this.deps.log.warn({ exit, failure }, 'inference failed');
    return { ok: false, status: 502, detail: `The inference failed: ${workerFailureReason(call)}` };
  }
}
