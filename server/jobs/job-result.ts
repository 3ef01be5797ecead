/**
 * An output's result read through the result contract (schemas/results/job-result.schema.json, typed in
 * src/generated/job-result.ts): the one door by which server code reads what a worker's run produced.
 * A result that breaks the contract (an older worker's, a self-test's counts) reads as null, so no caller
 * guesses at keys.
 */
import Ajv from 'ajv';

import { jobResultSchema, type JobResult, type WorkerPrediction } from '../../src/generated/job-result';
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
