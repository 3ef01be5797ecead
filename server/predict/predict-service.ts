import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Problem, Registry } from '../../src/engine';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import { ApplicationsRepository } from '../applications/applications-repository';
import { APPLICATION_NOT_FOUND } from '../applications/applications-service';
import type { UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { DatasetRefusal } from '../datasets/dataset-refusal';
import { UrlFetcher } from '../datasets/url-fetcher';
import { JobStatus } from '../jobs/job-states';
import type { JobRunner } from '../jobs/job-runner';
import type { JobsRepository } from '../jobs/jobs-repository';
import { callWorker, endWorkerCalls, workerFailureReason } from '../jobs/worker-call';
import { latestTrainedOutput, workerPredictionOf, type WorkerPrediction } from '../jobs/job-result';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';
import type { Config } from '../config';
import type { FileStore } from '../storage/file-store';

/** The spec's sentence for a prediction that failed on the server (workspace.md section 8). */
export const PREDICTION_FAILED = 'An error occurred while processing the image.';

/** A problem whose file has a predict block: the problems the predict route serves. */
export type PredictProblem = Problem & { predict: NonNullable<Problem['predict']> };

export const hasPredict = (problem: Problem): problem is PredictProblem => problem.predict !== undefined;

const RESULT_MODEL_TYPE = { classical: 'Classical', quantum: 'Quantum' } as const;

export const TOO_MANY_PREDICTIONS =
  'Too many predictions are running at the moment; try again in a few seconds';
const DEFAULT_TIMEOUT_SECONDS = 60;
const DEFAULT_MAX_CONCURRENT = 4;
const RETRY_AFTER_SECONDS = 5;

export type ImageSource =
  { kind: 'file'; path: string; name: string } | { kind: 'url'; url: string } | { kind: 'none' };

export interface PredictRequest {
  /** The problem whose predict route was called (its file has a predict block). */
  problemId: string;
  userId: number;
  applicationId: number;
  modelName: string;
  image: ImageSource;
}

export interface Prediction {
  prediction: string;
  probabilities: Record<string, number>;
  message: string;
  output_id: number;
  model: { output_id: number; model_name: string };
}

interface FieldError {
  field: string;
  message: string;
}

export type PredictRefusal = {
  ok: false;
  status: 400 | 404 | 409 | 413 | 429 | 502;
  detail: string;
  errors?: FieldError[];
  retryAfter?: number;
};
export type PredictOutcome = { ok: true; data: Prediction } | PredictRefusal;

export interface PredictOptions {
  /** DATA_DIR/outputs: a training output's bundle is `{outputsDir}/{id}/{trained_model_path}`. */
  outputsDir: string;
  /** Publishes the prediction's image (outputs/{id}/...); the worker fetches a bundle trained elsewhere. */
  files?: Pick<FileStore, 'put'>;
  /** A worker that has not answered by then is killed and the request refused (default 60 s). */
  timeoutSeconds?: number;
  /** Predictions running at once in this process; more are refused with 429 (default 4). */
  maxConcurrent?: number;
}

interface TrainingOutput {
  id: number;
  trained_model_path: string;
  model: string | null;
}

const refuse = (status: PredictRefusal['status'], field: string | null, message: string): PredictRefusal => ({
  ok: false,
  status,
  detail: message,
  ...(field ? { errors: [{ field, message }] } : {}),
});

/**
 * A class from one image with an application's trained model, for every problem whose file has a
 * predict block (brain tumor's MRI classes: spec workspace.md section 7): the caller's
 * own application of that problem, its latest Completed training output of the
 * chosen kind, the image uploaded or fetched (image_url: the SSRF-safe fetcher), and the worker's
 * `predict` command, which decides the type by content and checks the MRI look. A prediction that
 * answers is kept as a Completed output (result type Prediction) with its image in the output's
 * directory. Refusals carry the problem file's messages and name the field; bad input is never a 500.
 */
export class PredictService {
  private readonly running = new Set<WorkerHandle>();
  private closed = false;

  constructor(
    private readonly deps: {
      db: Database;
      applications: ApplicationsRepository;
      jobs: JobsRepository;
      runner: JobRunner;
      registry: Registry;
      launcher: WorkerLauncher;
      /** The fetcher of a problem's image_url (an 'image URL' subject, its predict.image.maxBytes). */
      fetcherFor: (problem: PredictProblem) => UrlFetcher;
      log: FastifyBaseLogger;
    },
    private readonly options: PredictOptions,
  ) {}

  /** Every problem whose file has a predict block: each gets the predict route. */
  problems(): PredictProblem[] {
    return this.deps.registry.problems.filter(hasPredict);
  }

  /** The problem `problemId`, which must have a predict block. */
  problem(problemId: string): PredictProblem {
    const problem = this.deps.registry.getProblem(problemId);
    if (!hasPredict(problem)) throw new Error(`problems/${problemId}.json has no predict block`);
    return problem;
  }

  /** The image rule's messages (type, size, notMri, ...), by key. */
  messages(problemId: string): PredictProblem['predict']['image']['messages'] {
    return this.problem(problemId).predict.image.messages;
  }

  /** The largest image accepted, in bytes (the problem file's predict.image.maxBytes). */
  maxBytes(problemId: string): number {
    return maxImageBytes(this.problem(problemId));
  }

  /** A fresh private directory for one request's image; the caller removes it (the output keeps a copy). */
  async scratchDir(): Promise<string> {
    return mkdtemp(path.join(os.tmpdir(), 'qml-predict-'));
  }

  async predict(caller: UserRecord, request: PredictRequest, scratch: string): Promise<PredictOutcome> {
    const problem = this.problem(request.problemId);
    if (caller.id !== request.userId) return refuse(404, null, USER_NOT_FOUND);
    const app = await this.deps.applications.find(request.applicationId);
    if (!app || app.user_id !== caller.id || app.app_problem_id !== problem.id) {
      return refuse(404, null, APPLICATION_NOT_FOUND);
    }
    const messages = this.messages(problem.id);
    // Which training answers for the choice is the problem file's predict.modelKinds.
    const kind = problem.predict.modelKinds[request.modelName];
    if (!kind || !problem.predict.models.includes(request.modelName)) {
      return refuse(400, '/model_name', problem.predict.messages.modelRequired);
    }
    if (request.image.kind === 'none') {
      return refuse(400, '/file', messages.missing);
    }

    const training = await this.latestTraining(problem.id, app.id, kind);
    if (!training) {
      return refuse(409, '/model_name', problem.predict.messages.noModel.replace('{kind}', kind));
    }
    if (this.closed || this.running.size >= (this.options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT)) {
      return { ok: false, status: 429, detail: TOO_MANY_PREDICTIONS, retryAfter: RETRY_AFTER_SECONDS };
    }

    const image = await this.imageFile(problem, request.image, scratch);
    if (!image.ok) return image;
    const bundle = path.join(this.options.outputsDir, String(training.id), training.trained_model_path);
    const call = await callWorker(this.deps.launcher, this.running, {
      command: 'predict',
      input: { image_path: image.path, bundle_path: bundle, file_name: image.name },
      timeoutSeconds: this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    });
    const field = request.image.kind === 'url' ? '/image_url' : '/file';
    if (call.timedOut) {
      return refuse(502, null, `The prediction took longer than ${call.timeoutSeconds} s and was stopped`);
    }
    if (call.failure?.kind === 'validation') {
      if (call.failure.field === '/bundle_path') {
        return refuse(502, null, `The model of output ${training.id}: ${call.failure.message}`);
      }
      // What the image reader said of the file (a library's exception) is on the worker's stderr.
      this.deps.log.info({ stderr: call.exit.stderrTail }, 'image refused');
      return refuse(400, field, call.failure.message);
    }
    const result = workerPredictionOf(call.result);
    if (call.exit.code !== 0 || !result) {
      // The worker's words name Python internals: they go to the log, the client gets the spec's sentence.
      this.deps.log.warn(
        { exit: call.exit, failure: call.failure, reason: workerFailureReason(call) },
        'prediction failed',
      );
      return refuse(502, null, PREDICTION_FAILED);
    }
    return { ok: true, data: await this.record(caller, problem, app, request, training, image, result) };
  }

  /** Kills the predictions under way (server shutdown); later requests are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await endWorkerCalls(this.running);
  }

  /** The application's latest Completed training output of that kind that saved a model. */
  private async latestTraining(
    problemId: string,
    applicationId: number,
    kind: 'classical' | 'quantum',
  ): Promise<TrainingOutput | null> {
    const found = await latestTrainedOutput(this.deps.db, applicationId, {
      kind: problemId,
      modelType: RESULT_MODEL_TYPE[kind],
    });
    return (
      found && {
        id: found.id,
        trained_model_path: found.result.trained_model_path,
        model: found.result.model,
      }
    );
  }

  /** The uploaded file, or image_url fetched into `scratch`; a refusal naming image_url when it cannot be. */
  private async imageFile(
    problem: PredictProblem,
    source: Exclude<ImageSource, { kind: 'none' }>,
    scratch: string,
  ): Promise<{ ok: true; path: string; name: string } | PredictRefusal> {
    if (source.kind === 'file') return { ok: true, path: source.path, name: source.name };
    const target = path.join(scratch, `image-${randomBytes(6).toString('hex')}`);
    try {
      await this.deps.fetcherFor(problem).download(source.url, target);
    } catch (error) {
      if (!(error instanceof DatasetRefusal)) throw error;
      const message = error.status === 413 ? this.messages(problem.id).size : error.message;
      return refuse(error.status === 413 ? 413 : 400, '/image_url', message);
    }
    return { ok: true, path: target, name: nameOfUrl(source.url) };
  }

  /** Keeps the prediction as a Completed output of the application, its image in the output's directory. */
  private async record(
    caller: UserRecord,
    problem: PredictProblem,
    app: { id: number; app_name: string; app_data: Record<string, unknown> },
    request: PredictRequest,
    training: TrainingOutput,
    image: { path: string; name: string },
    result: WorkerPrediction,
  ): Promise<Prediction> {
    const model = {
      output_id: training.id,
      model_name: training.model ?? result.model_name ?? request.modelName,
    };
    const params = {
      model_name: request.modelName,
      application_id: app.id,
      ...(request.image.kind === 'url' ? { image_url: request.image.url } : {}),
    };
    const job = await this.deps.db.transaction((tx) =>
      this.deps.jobs.create(tx, {
        kind: problem.id,
        ownerId: caller.id,
        params,
        applicationId: app.id,
        appData: app.app_data,
        name: `${app.app_name} #{id}`,
      }),
    );
    const extension =
      result.image.kind === 'jpeg' ? 'jpg' : result.image.kind === 'nifti' ? 'nii' : result.image.kind;
    const stored = `image.${extension}${image.name.toLowerCase().endsWith('.gz') ? '.gz' : ''}`;
    const directory = path.join(this.options.outputsDir, String(job.id));
    await mkdir(directory, { recursive: true });
    // Copied, not moved: the scratch directory may be on another file system; the caller removes it.
    await copyFile(image.path, path.join(directory, stored));
    await this.options.files?.put(`outputs/${job.id}/${stored}`);
    const top = result.probabilities[result.prediction] ?? 0;
    const message = `Predicted ${result.prediction} (${(top * 100).toFixed(1)}% probability) with ${model.model_name} from output ${training.id}.`;
    const outputData = {
      result_type: 'Prediction',
      prediction: result.prediction,
      probabilities: result.probabilities,
      image: {
        name: image.name,
        kind: result.image.kind,
        width: result.image.width,
        height: result.image.height,
        file: stored,
      },
      model,
      check: result.check,
    };
    const done = {
      problem: problem.id,
      model: model.model_name,
      model_type: RESULT_MODEL_TYPE[problem.predict.modelKinds[request.modelName]!],
      message,
      output_data: outputData,
      seconds: result.seconds,
    };
    await this.deps.runner.transition(job.id, [JobStatus.queued], JobStatus.running);
    await this.deps.runner.transition(job.id, [JobStatus.running], JobStatus.completed, { result: done });
    return {
      prediction: result.prediction,
      probabilities: result.probabilities,
      message,
      output_id: job.id,
      model,
    };
  }
}

/** The last path segment of an image URL, for the output's record ("image" when it has none). */
function nameOfUrl(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last).slice(0, 200) : 'image';
  } catch {
    return 'image';
  }
}

/** The largest image a problem's predict accepts (its file's predict.image.maxBytes). */
export function maxImageBytes(problem: PredictProblem): number {
  return problem.predict.image.maxBytes;
}

/**
 * The service over the process's parts (server/services.ts builds it once). It serves
 * every problem whose file has a predict block, each with an image URL fetcher of its own limit.
 */
export function createPredictService(
  config: Pick<Config, 'dataDir' | 'urlFetchMaxBytes' | 'urlFetchTimeoutMs'>,
  parts: {
    db: Database;
    registry: Registry;
    launcher: WorkerLauncher;
    runner: JobRunner;
    jobs: JobsRepository;
  },
  log: FastifyBaseLogger,
  files?: Pick<FileStore, 'put'>,
): PredictService {
  const fetchers = new Map<string, UrlFetcher>();
  const fetcherFor = (problem: PredictProblem) => {
    let fetcher = fetchers.get(problem.id);
    if (!fetcher) {
      fetcher = new UrlFetcher({
        dataDir: config.dataDir,
        maxBytes: Math.min(maxImageBytes(problem), config.urlFetchMaxBytes),
        timeoutMs: config.urlFetchTimeoutMs,
        subject: 'image URL',
      });
      fetchers.set(problem.id, fetcher);
    }
    return fetcher;
  };
  return new PredictService(
    { ...parts, applications: new ApplicationsRepository(parts.db), fetcherFor, log },
    { outputsDir: path.join(config.dataDir, 'outputs'), files },
  );
}
