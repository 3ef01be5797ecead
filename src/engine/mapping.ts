// Declarative mapping from app_data to the job request. Each entry sets one JSON pointer of the
// target from an app_data pointer (`from`, or a list: the first one present), a context value
// (`context`) or a constant (`const`); `transform` names one of a small, closed set of
// functions; `default` stands in for an absent source (otherwise the key is left out); `when`
// applies the entry only while an app_data value equals a given value. No code in the files.

import { deepClone, deepEqual } from './json';
import { getPointer, hasPointer, setPointer } from './pointer';
import { pruneAppData } from './validate';
import type {
  AppData,
  EngineContext,
  JsonSchema,
  JsonValue,
  MappingEntry,
  Problem,
  TransformName,
} from './types';

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? fn(v) : v));
  return value;
}

/** The closed set of transforms a mapping entry may name. */
export const TRANSFORMS: Record<TransformName, (value: unknown) => unknown> = {
  lowercase: (v) => mapStrings(v, (s) => s.toLowerCase()),
  uppercase: (v) => mapStrings(v, (s) => s.toUpperCase()),
  /** Removes carriage returns left by CSV headers ("Close\r") from a string or a list of strings. */
  stripCarriageReturns: (v) => mapStrings(v, (s) => s.replace(/\r/g, '')),
  toNumber: (v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v),
  toString: (v) =>
    v === null || v === undefined ? v : typeof v === 'object' ? JSON.stringify(v) : String(v),
};

export const TRANSFORM_NAMES = Object.keys(TRANSFORMS) as TransformName[];

function readEntry(
  entry: MappingEntry,
  source: AppData,
  context: EngineContext,
): { present: boolean; value?: unknown } {
  if ('const' in entry) return { present: true, value: deepClone(entry.const) };
  if (entry.context !== undefined) {
    const value = context[entry.context];
    return value === undefined ? { present: false } : { present: true, value };
  }
  const pointers = Array.isArray(entry.from) ? entry.from : entry.from !== undefined ? [entry.from] : [];
  for (const pointer of pointers) {
    if (hasPointer(source, pointer)) {
      const value = getPointer(source, pointer);
      if (value !== undefined) return { present: true, value: deepClone(value) };
    }
  }
  return { present: false };
}

/** Applies mapping entries in order (later entries for the same target win). */
export function applyMapping(
  entries: readonly MappingEntry[],
  source: AppData,
  context: EngineContext = {},
): Record<string, unknown> {
  const target: Record<string, unknown> = {};
  for (const entry of entries) {
    if (entry.when && !deepEqual(getPointer(source, entry.when.pointer), entry.when.equals)) continue;
    const read = readEntry(entry, source, context);
    let value: unknown;
    if (read.present) {
      value = entry.transform ? TRANSFORMS[entry.transform](read.value) : read.value;
    } else if ('default' in entry) {
      value = deepClone(entry.default as JsonValue);
    } else {
      continue;
    }
    setPointer(target, entry.to, value);
  }
  return target;
}

/**
 * The body's keys in the order of the job-body schema's properties (the specified order), so
 * entries may come in any order, e.g. a shared fragment spliced in one place.
 */
function inBodySchemaOrder(problem: Problem, body: Record<string, unknown>): Record<string, unknown> {
  const properties = problem.job.bodySchema.properties;
  const order = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  const out: Record<string, unknown> = {};
  for (const key of order) if (key in body) out[key] = body[key];
  for (const [key, value] of Object.entries(body)) if (!(key in out)) out[key] = value;
  return out;
}

/** The job body for a run: app_data pruned of inactive fields, then mapped. */
export function mapJobBody(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
): Record<string, unknown> {
  return inBodySchemaOrder(problem, applyMapping(problem.job.body, pruneAppData(problem, appData), context));
}

export interface JobRequest {
  method: 'POST' | 'PUT';
  /** The path with its {placeholders} filled in (URL-encoded). */
  path: string;
  query: Record<string, string | number | boolean>;
  body: Record<string, unknown>;
}

/** The whole execute-job request: method, path, query string values and body. */
export function mapJobRequest(problem: Problem, appData: AppData, context: EngineContext = {}): JobRequest {
  const pruned = pruneAppData(problem, appData);
  const request = problem.job.request;
  const params = applyMapping(request.params ?? [], pruned, context);
  const path = request.path.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    const value = name in params ? params[name] : (context as Record<string, unknown>)[name];
    return value === undefined || value === null ? whole : encodeURIComponent(String(value));
  });
  const query: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(applyMapping(request.query ?? [], pruned, context))) {
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') query[k] = v;
  }
  const body = inBodySchemaOrder(problem, applyMapping(problem.job.body, pruned, context));
  return { method: request.method, path, query, body };
}

/**
 * The keys of the job extension: what the worker needs beside the spec's body (spec section 7 leaves
 * them out) so that every input the user sets takes effect. Each is null when the problem does not
 * map it (the worker then uses its default).
 */
export const JOB_EXTENSION_KEYS = [
  'normalization',
  'missing_values',
  'target_column',
  'quantum_noise_model',
  /** Brain tumor: the training range {start, end} (1-based, inclusive) and the validation split. */
  'range',
  'split',
  /** Brain tumor QCNN: the quantum convolution's stride (the form's Step Size; not in the spec's body). */
  'step_size',
  /** Fraud detection: the recall the decision threshold must reach (null: the threshold of the best F1). */
  'recall_target',
  /** How many times the run repeats with consecutive seeds (1..10), reported as one output. */
  'repeats',
] as const;

export type JobExtensionKey = (typeof JOB_EXTENSION_KEYS)[number];

/** The shape entries of job.extension may write to (the schema checker's `/to` check). */
export const JOB_EXTENSION_TARGET: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(JOB_EXTENSION_KEYS.map((key) => [key, {}])),
};

/**
 * The job extension for a run: app_data pruned of inactive fields, then mapped with the problem's
 * optional job.extension entries; every key of JOB_EXTENSION_KEYS is present (null when unmapped).
 */
export function mapJobExtension(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
): Record<JobExtensionKey, unknown> {
  const mapped = applyMapping(problem.job.extension ?? [], pruneAppData(problem, appData), context);
  const extension = Object.fromEntries(JOB_EXTENSION_KEYS.map((key) => [key, null])) as Record<
    JobExtensionKey,
    unknown
  >;
  for (const key of JOB_EXTENSION_KEYS) if (mapped[key] !== undefined) extension[key] = mapped[key];
  return extension;
}
