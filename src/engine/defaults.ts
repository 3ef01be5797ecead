// Defaults: blank app_data, the example app_data, and branch defaults when a field changes
// (choosing Quantum sets optimizer VQE; a field that appears gets its default).

import { produce, type Draft } from 'immer';

import { hasFields, resolveFields, type ResolvedField } from './conditions';
import { deepClone, deepEqual, isPlainObject } from './json';
import { parsePointer, removePointer, setPointer } from './pointer';
import type { AppData, EngineContext, FieldSchema, FormKey, ObjectSchema, Problem, XDefault } from './types';

const MAX_PASSES = 8;

export function computeXDefault(xDefault: XDefault, context: EngineContext): number | undefined {
  const values: number[] = [];
  for (const item of xDefault.minOf) {
    if (typeof item === 'number') values.push(item);
    else if (typeof context[item.context] === 'number') values.push(context[item.context] as number);
  }
  return values.length > 0 ? Math.min(...values) : undefined;
}

/** The default of a field: `default`, else `x-default` computed from the context. */
export function fieldDefault(schema: FieldSchema, context: EngineContext): { value: unknown } | undefined {
  if ('default' in schema) return { value: deepClone(schema.default) };
  if (schema['x-default']) {
    const value = computeXDefault(schema['x-default'], context);
    if (value !== undefined) return { value };
  }
  return undefined;
}

function allowedBy(schema: FieldSchema, value: unknown): boolean {
  if ('const' in schema && !deepEqual(schema.const, value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) return false;
  return true;
}

function defaultFor(field: ResolvedField, context: EngineContext): { value: unknown } | undefined {
  if (field.branchDefault) return { value: deepClone(field.branchDefault.value) };
  const own = fieldDefault(field.schema, context);
  if (own) return own;
  if (hasFields(field.schema) && field.required) return { value: fillDefaults(field.schema, {}, context) };
  return undefined;
}

/** Fills the defaults of every active field that has no value (recursively); returns a new object. */
export function fillDefaults(
  schema: ObjectSchema | FieldSchema,
  value: unknown,
  context: EngineContext = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = isPlainObject(value) ? { ...value } : {};
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changed = false;
    for (const field of resolveFields(schema, out)) {
      if (!field.active) continue;
      const current = out[field.name];
      if (current === undefined) {
        const d = defaultFor(field, context);
        if (d && d.value !== undefined) {
          out[field.name] = d.value;
          changed = true;
        }
      } else if (hasFields(field.schema) && isPlainObject(current)) {
        const filled = fillDefaults(field.schema, current, context);
        if (!deepEqual(filled, current)) {
          out[field.name] = filled;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return out;
}

/**
 * After a change: fields that became active get their defaults, and fields whose active branch
 * changed take the branch's default when their value is missing or not allowed any more.
 * Mutates `after` (a draft); `before` is the object before the change.
 */
function reconcile(
  schema: ObjectSchema | FieldSchema,
  before: unknown,
  after: Record<string, unknown>,
  context: EngineContext,
): void {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changed = false;
    const previous = new Map(resolveFields(schema, before).map((f) => [f.name, f]));
    for (const field of resolveFields(schema, after)) {
      if (!field.active) continue;
      const was = previous.get(field.name);
      const current = after[field.name];
      const appeared = !was?.active;
      const branchChanged = !!was && was.branchKey !== field.branchKey;
      if (current === undefined && (appeared || branchChanged)) {
        const d = defaultFor(field, context);
        if (d && d.value !== undefined) {
          after[field.name] = d.value;
          changed = true;
        }
      } else if (branchChanged && field.branchDefault && !allowedBy(field.schema, current)) {
        after[field.name] = deepClone(field.branchDefault.value);
        changed = true;
      } else if (hasFields(field.schema) && isPlainObject(current)) {
        const prev = isPlainObject(before) ? before[field.name] : undefined;
        reconcile(field.schema, prev, current, context);
      }
    }
    if (!changed) break;
    before = deepClone(after);
  }
}

/** Blank app_data for a new application: every form with its defaults. */
export function createDefaultAppData(problem: Problem, context: EngineContext = {}): AppData {
  const out: AppData = {};
  for (const key of problem.formKeys) out[key] = fillDefaults(problem.forms[key]!.schema, {}, context);
  out.outputs = deepClone(problem.outputDefinitions);
  return out;
}

/** The example application of a problem (gallery): its name, app_data and dataset context. */
export function createExampleAppData(problem: Problem): {
  appName: string;
  appData: AppData;
  context: EngineContext;
} {
  const appData = deepClone(problem.example.appData);
  if (appData.outputs === undefined) appData.outputs = deepClone(problem.outputDefinitions);
  return { appName: problem.example.appName, appData, context: deepClone(problem.example.context ?? {}) };
}

/**
 * Sets one value (JSON pointer into app_data; `undefined` removes it) and applies branch
 * defaults. Returns a new app_data sharing unchanged parts (immer); the input is not touched.
 */
export function setFieldValue(
  problem: Problem,
  appData: AppData,
  path: string,
  value: unknown,
  context: EngineContext = {},
): AppData {
  const [formKey] = parsePointer(path);
  const form = problem.forms[formKey as FormKey];
  return produce(appData, (draft: Draft<AppData>) => {
    const root = draft as Record<string, unknown>;
    if (value === undefined) removePointer(root, path);
    else setPointer(root, path, deepClone(value));
    if (!form) return;
    const target = root[formKey!];
    if (isPlainObject(target)) reconcile(form.schema, appData[formKey as FormKey], target, context);
  });
}

/** Applies several changes in order (each with branch defaults). */
export function setFieldValues(
  problem: Problem,
  appData: AppData,
  changes: ReadonlyArray<{ path: string; value: unknown }>,
  context: EngineContext = {},
): AppData {
  return changes.reduce((data, c) => setFieldValue(problem, data, c.path, c.value, context), appData);
}
