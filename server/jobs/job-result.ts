/**
 * An output's result read through the result contract (schemas/results/job-result.schema.json, typed in
 * src/generated/job-result.ts): the one door by which server code reads what a worker's run produced.
 * A result that breaks the contract (an older worker's, a self-test's counts) reads as null, so no caller
 * guesses at keys.
 */
import Ajv from 'ajv';

import { jobResultSchema, type JobResult, type WorkerPrediction } from '../../src/generated/job-result';
import type { Queryable } from '../db/database';
import { JobStatus } from './job-states';
import type { JobRecord } from './jobs-repository';

export type { JobResult, MetricMap, QuantumRun, WorkerPrediction } from '../../src/generated/job-result';

// Draft-07, as the schema file declares; strict so that a typo in the schema fails at start.
const ajv = new Ajv({ strict: true });
const isJobResult = ajv.compile<JobResult>(jobResultSchema);
const isWorkerPrediction = ajv.compile<WorkerPrediction>({
  ...jobResultSchema.definitions.workerPrediction,
  definitions: jobResultSchema.definitions,
});

/** The stored result of a job as the contract types it; null when there is none or it breaks the contract. */
export function jobResultOf(job: Pick<JobRecord, 'result'>): JobResult | null {
  return job.result !== null && isJobResult(job.result) ? job.result : null;
}

/** The worker's predict answer as the contract types it; null when it breaks the contract. */
export function workerPredictionOf(value: unknown): WorkerPrediction | null {
  return isWorkerPrediction(value) ? value : null;
}

/** Metric values that are numbers (a metric undefined for the model is null in the result). */
export function definedMetrics(metrics: Record<string, number | null> | undefined): Record<string, number> {
  return Object.fromEntries(
    Object.entries(metrics ?? {}).filter((entry): entry is [string, number] => entry[1] !== null),
  );
}

/** A Completed output whose result, read through the contract, names the model it saved. */
export interface TrainedOutput {
  id: number;
  result: JobResult & { trained_model_path: string };
}

/** Completed outputs read at a time while looking for the latest trained model. */
const TRAINED_PAGE = 20;

/**
 * The application's latest Completed output that saved a trained model (of one job kind and model type
 * when given): the outputs are read newest first, a page at a time, and their results through the
 * contract, so a result that breaks it names no model to load.
 */
export async function latestTrainedOutput(
  db: Queryable,
  applicationId: number,
  only: { kind?: string; modelType?: JobResult['model_type'] } = {},
): Promise<TrainedOutput | null> {
  let before = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const { rows } = await db.query<Pick<JobRecord, 'id' | 'result'>>(
      `select id, result from jobs
       where application_id = $1 and status = $2 and id < $3 and ($4::text is null or kind = $4)
       order by id desc limit ${TRAINED_PAGE}`,
      [applicationId, JobStatus.completed, before, only.kind ?? null],
    );
    for (const row of rows) {
      const result = jobResultOf(row);
      if (
        result?.trained_model_path &&
        (only.modelType === undefined || result.model_type === only.modelType)
      )
        return { id: Number(row.id), result: { ...result, trained_model_path: result.trained_model_path } };
    }
    if (rows.length < TRAINED_PAGE) return null;
    before = Number(rows[rows.length - 1]!.id);
  }
}
