// Validation of app_data (with the spec's messages) and of job bodies.

import type { ErrorObject } from 'ajv/dist/2020';

import { createAppDataAjv, createPlainAjv, type AjvInstance } from './ajv';
import { buildValidationSchema } from './app-data-schema';
import { precompiledValidators, schemaFingerprint, type Validate } from './precompiled';
import { declaredFieldNames, firstDeclaration, lookupField, pruneValue } from './conditions';
import { isPlainObject } from './json';
import { formatPointer, parsePointer } from './pointer';
import type {
  AppData,
  EngineContext,
  FieldError,
  FieldSchema,
  FormKey,
  Problem,
  ValidationResult,
} from './types';

interface CompiledProblem {
  appData: Validate;
  jobBody: Validate;
}

let appDataAjv: AjvInstance | undefined;
let plainAjv: AjvInstance | undefined;

/**
 * How many problems' validators stay compiled. A long server process meets a new Problem object for
 * every schema change or reload; ajv keeps each schema it compiled (and the generated code) until it
 * is removed, so the cache is keyed by the schemas' fingerprint, the least recently used entry is
 * dropped past the bound, and its schemas are removed from the ajv instances with it.
 */
export const COMPILED_PROBLEMS_LIMIT = 16;

interface CacheEntry {
  compiled: CompiledProblem;
  /** Removes the entry's schemas from the ajv instances (none for precompiled validators). */
  release?: () => void;
}

/** By fingerprint, least recently used first (a Map keeps insertion order). */
const cache = new Map<string, CacheEntry>();
const fingerprints = new WeakMap<Problem, string>();
const counts = { hits: 0, misses: 0 };

function fingerprintOf(problem: Problem): string {
  let fingerprint = fingerprints.get(problem);
  if (fingerprint === undefined) {
    fingerprint = schemaFingerprint(buildValidationSchema(problem), problem.job.bodySchema);
    fingerprints.set(problem, fingerprint);
  }
  return fingerprint;
}

/** The compiled-validator cache's size and use (tests; a memory check of a long process). */
export function compiledProblemsCache(): {
  size: number;
  hits: number;
  misses: number;
  ajvSchemas: number;
} {
  const held = (ajv: AjvInstance | undefined) =>
    (ajv as unknown as { _cache?: Map<unknown, unknown> })?._cache?.size ?? 0;
  return { size: cache.size, ...counts, ajvSchemas: held(appDataAjv) + held(plainAjv) };
}

function getCompiled(problem: Problem): CompiledProblem {
  const fingerprint = fingerprintOf(problem);
  const hit = cache.get(fingerprint);
  if (hit) {
    counts.hits++;
    cache.delete(fingerprint);
    cache.set(fingerprint, hit);
    return hit.compiled;
  }
  counts.misses++;
  let entry: CacheEntry;
  const precompiled = precompiledValidators()?.problems;
  if (precompiled) {
    const candidate = precompiled[problem.id];
    // Compiling here would need eval, which the browser's CSP refuses: say what is wrong instead.
    if (candidate?.fingerprint !== fingerprint)
      throw new Error(
        `No precompiled validator for problem "${problem.id}" as it is now: the validators were written from other schema files (the server may have restarted with changed ones). Reload the page.`,
      );
    entry = { compiled: candidate };
  } else {
    const forms = (appDataAjv ??= createAppDataAjv());
    const plain = (plainAjv ??= createPlainAjv());
    const appDataSchema = buildValidationSchema(problem);
    const bodySchema = problem.job.bodySchema;
    entry = {
      compiled: { appData: forms.compile(appDataSchema), jobBody: plain.compile(bodySchema) },
      release: () => {
        forms.removeSchema(appDataSchema);
        plain.removeSchema(bodySchema);
      },
    };
  }
  cache.set(fingerprint, entry);
  for (const [key, oldest] of cache) {
    if (cache.size <= COMPILED_PROBLEMS_LIMIT) break;
    cache.delete(key);
    oldest.release?.();
  }
  return entry.compiled;
}

/** Compiles a problem's validators ahead of time (otherwise done on first use). */
export function precompileProblem(problem: Problem): void {
  getCompiled(problem);
}

/**
 * Drops inactive and undeclared values (fields of conditions that do not apply, keys no form
 * declares) from app_data. Save and mapping always work on pruned data.
 */
export function pruneAppData(problem: Problem, appData: AppData): AppData {
  const out: AppData = {};
  for (const key of problem.formKeys) {
    const value = appData[key];
    if (value !== undefined)
      out[key] = pruneValue(problem.forms[key]!.schema, value) as Record<string, unknown>;
  }
  if (appData.outputs !== undefined) out.outputs = appData.outputs;
  return out;
}

const KEYWORD_ORDER = [
  'required',
  'type',
  'minLength',
  'minItems',
  'enum',
  'const',
  'multipleOf',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'x-minimum',
];

function keywordRank(keyword: string): number {
  const i = KEYWORD_ORDER.indexOf(keyword);
  return i === -1 ? KEYWORD_ORDER.length : i;
}

function stripPrefix(instancePath: string, prefix: string): string | undefined {
  if (instancePath === prefix) return '';
  if (instancePath.startsWith(prefix + '/')) return instancePath.slice(prefix.length);
  return undefined;
}

function labelAt(problem: Problem, path: string, data: AppData): string | undefined {
  const [formKey, ...rest] = parsePointer(path);
  const form = problem.forms[formKey as FormKey];
  if (!form || rest.length === 0) return undefined;
  return lookupField(form.schema, rest, data[formKey as FormKey] ?? {})?.schema.title;
}

interface RawError {
  path: string;
  keyword: string;
  message?: string;
  ajvMessage?: string;
}

function flatten(errors: ErrorObject[], prefix: string): RawError[] {
  const out: RawError[] = [];
  for (const error of errors) {
    const base = stripPrefix(error.instancePath, prefix);
    if (base === undefined) continue;
    if (error.keyword === 'if') continue;
    if (error.keyword === 'errorMessage') {
      const originals = (error.params as { errors?: ErrorObject[] }).errors ?? [];
      const first = originals[0];
      const keyword = first?.keyword ?? 'errorMessage';
      const missing =
        keyword === 'required' ? (first?.params as { missingProperty?: string }).missingProperty : undefined;
      out.push({
        path: missing ? base + formatPointer([missing]) : base,
        keyword,
        message: error.message ?? '',
      });
      continue;
    }
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      out.push({ path: base + formatPointer([missing]), keyword: 'required' });
      continue;
    }
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      out.push({ path: base + formatPointer([extra]), keyword: error.keyword, ajvMessage: 'is not allowed' });
      continue;
    }
    out.push({ path: base, keyword: error.keyword, ajvMessage: error.message ?? 'is invalid' });
  }
  return out;
}

function finish(
  raw: RawError[],
  describe: (e: RawError) => { message: string; label?: string },
  rank: (path: string) => number[] = () => [],
): FieldError[] {
  const groups = new Map<string, RawError[]>();
  const ranks = new Map<string, number[]>();
  for (const path of new Set(raw.map((e) => e.path))) ranks.set(path, rank(path));
  const ordered = [...raw].sort((a, b) => compareRanks(ranks.get(a.path)!, ranks.get(b.path)!));
  for (const e of ordered) {
    const list = groups.get(e.path) ?? [];
    list.push(e);
    groups.set(e.path, list);
  }
  const out: FieldError[] = [];
  for (const [path, list] of groups) {
    const seen = new Set<string>();
    list.sort((a, b) => keywordRank(a.keyword) - keywordRank(b.keyword));
    for (const e of list) {
      const { message, label } = describe(e);
      if (seen.has(message)) continue;
      seen.add(message);
      const segments = parsePointer(path);
      out.push({
        path,
        field: segments[segments.length - 1] ?? '',
        ...(label ? { label } : {}),
        message,
        keyword: e.keyword,
      });
    }
  }
  return out;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Position of a path in the forms: form order, then declaration order at each level. */
function pathRank(problem: Problem, path: string): number[] {
  const [formKey, ...rest] = parsePointer(path);
  const rank = [problem.formKeys.indexOf(formKey as FormKey)];
  let schema: FieldSchema | undefined = problem.forms[formKey as FormKey]?.schema as FieldSchema | undefined;
  for (const segment of rest) {
    if (!schema) break;
    if (schema.items && /^\d+$/.test(segment)) {
      rank.push(Number(segment));
      schema = schema.items;
      continue;
    }
    const names = declaredFieldNames(schema);
    rank.push(names.indexOf(segment));
    schema = firstDeclaration(schema, segment);
  }
  return rank;
}

/** Fills in the form objects the problem declares, so their required fields are reported. */
function withFormObjects(problem: Problem, appData: AppData): AppData {
  const out: AppData = { ...appData };
  for (const key of problem.formKeys) if (!isPlainObject(out[key])) out[key] = {};
  return out;
}

/**
 * Validates app_data against the problem's schema. Inactive values are pruned first (a hidden
 * field never blocks saving). Errors carry the app_data path, the field name and the message
 * word for word from the schema files; per path the most basic failure comes first.
 */
export function validateAppData(
  problem: Problem,
  appData: AppData,
  context: EngineContext = {},
): ValidationResult {
  const data = withFormObjects(problem, pruneAppData(problem, appData ?? {}));
  const validate = getCompiled(problem).appData;
  const ctx: Record<string, unknown> = {};
  if (typeof context.rowCount === 'number') ctx.rowCount = context.rowCount;
  if (Array.isArray(context.columns)) ctx.columns = context.columns;
  const valid = validate({ app_data: data, context: ctx }) as boolean;
  if (valid) return { valid: true, errors: [] };
  const required = problem.platform.messages.fieldRequired;
  const errors = finish(
    flatten(validate.errors ?? [], '/app_data'),
    (e) => {
      const label = labelAt(problem, e.path, data);
      if (e.message !== undefined) return { message: e.message, label };
      if (e.keyword === 'required') return { message: required, label };
      if (e.keyword === 'x-field') return { message: e.ajvMessage ?? '', label }; // a disabled option's reason
      return { message: `${label ?? parsePointer(e.path).pop() ?? 'Value'} ${e.ajvMessage}`, label };
    },
    (path) => pathRank(problem, path),
  );
  return { valid: errors.length === 0, errors };
}

/** Validation errors under one form (e.g. "preprocess") or any JSON pointer prefix. */
export function errorsUnder(errors: readonly FieldError[], pointer: string): FieldError[] {
  return errors.filter((e) => e.path === pointer || e.path.startsWith(pointer + '/'));
}

/** First message per path, for display next to fields. */
export function errorsByPath(errors: readonly FieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of errors) if (!(e.path in out)) out[e.path] = e.message;
  return out;
}

/** Validates a mapped job body against the problem's plain job-body schema (as the worker does). */
export function validateJobBody(problem: Problem, body: unknown): ValidationResult {
  const validate = getCompiled(problem).jobBody;
  if (validate(body)) return { valid: true, errors: [] };
  const errors = finish(flatten(validate.errors ?? [], ''), (e) => ({
    message: e.keyword === 'required' ? 'is required' : (e.ajvMessage ?? 'is invalid'),
  }));
  return { valid: false, errors };
}
