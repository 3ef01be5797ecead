/**
 * The server's side of the worker contracts, both validated with the worker's own schemas
 * (worker/qmlstudio_worker/schemas/, emitted `as const` into src/generated/worker-contract.ts):
 * the job envelope written to a worker's stdin, and each JSON line it writes on stdout.
 */
import Ajv from 'ajv';
import path from 'node:path';

import { joinPointer } from '../../src/engine';
import {
  jobEnvelopeSchema,
  workerLineSchema,
  type JobEnvelope,
  type WorkerLine,
} from '../../src/generated/worker-contract';

export type { ChartSpec, JobEnvelope, WorkerLine } from '../../src/generated/worker-contract';

// Draft-07, as the schema files declare; strict so that a typo in a schema fails at start.
const ajv = new Ajv({ strict: true });
const isWorkerLine = ajv.compile<WorkerLine>(workerLineSchema);
const isJobEnvelope = ajv.compile<JobEnvelope>(jobEnvelopeSchema);

/**
 * Parses one stdout line. Anything that is not a protocol line valid against the schema (a traceback,
 * a stray print, a line with a missing or mistyped field) becomes null, which the caller logs.
 */
export function parseWorkerLine(line: string): WorkerLine | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return isWorkerLine(value) ? value : null;
}

/** The server built an envelope its worker would refuse: a server defect, recorded as the job's failure. */
export class InvalidJobEnvelopeError extends Error {
  constructor(
    /** JSON pointer of the offending field in the envelope ("" for the whole envelope). */
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidJobEnvelopeError';
  }
}

/**
 * The envelope for a job, checked against job-envelope.schema.json before any worker is started.
 * With `outputsDir`, the job writes its artifacts to `{outputsDir}/{id}`; a non-empty `extension`
 * (dataset, preprocessing, seed of an output) goes along beside the body.
 */
export function buildJobEnvelope(
  job: { id: number; kind: string; params: unknown; extension?: Record<string, unknown> | null },
  outputsDir?: string,
): JobEnvelope {
  const envelope: unknown = {
    kind: job.kind,
    job_id: String(job.id),
    params: job.params,
    ...(outputsDir && { output_dir: path.join(outputsDir, String(job.id)) }),
    ...(job.extension && Object.keys(job.extension).length > 0 && { extension: job.extension }),
  };
  if (isJobEnvelope(envelope)) return envelope;
  const [error] = isJobEnvelope.errors ?? [];
  const extra = error?.params as { missingProperty?: string; additionalProperty?: string } | undefined;
  const name = extra?.missingProperty ?? extra?.additionalProperty;
  const field =
    name === undefined ? (error?.instancePath ?? '') : joinPointer(error?.instancePath ?? '', name);
  throw new InvalidJobEnvelopeError(
    field,
    `The job could not be handed to a worker: ${field || 'job'} ${error?.message ?? 'is invalid'}`,
  );
}
