// Conditional fields. A field is declared in an object schema's `properties` (always active) or in
// the `then`/`else` branch of one of its `allOf` conditions (active while that branch applies).
// One condition drives both "shown" and "required": a field is shown exactly when it is active,
// and required when the base or an active branch lists it in `required`. A branch may also narrow a
// field declared in the base (e.g. the options of a method select); the narrowing is merged in.

import { deepEqual, isPlainObject } from './json';
import { mergeSchemaOverride } from './refs';
import type { Branch, Condition, ConditionTest, FieldSchema, ObjectSchema } from './types';

export interface ResolvedField {
  name: string;
  /** The base declaration merged with the overrides of every active branch that mentions it. */
  schema: FieldSchema;
  active: boolean;
  required: boolean;
  /** Which branches contributed, e.g. "0:then"; changes when a condition flips. */
  branchKey: string;
  /** The `default` of the active branch override, if a branch declares one. */
  branchDefault?: { value: unknown };
}

export function isCondition(node: unknown): node is Condition {
  return isPlainObject(node) && isPlainObject(node.if) && isPlainObject(node.then);
}

export function conditionsOf(schema: ObjectSchema | FieldSchema): Condition[] {
  return Array.isArray(schema.allOf) ? (schema.allOf.filter(isCondition) as Condition[]) : [];
}

/** Whether a schema describes an object with its own fields (and so can be resolved and pruned). */
export function hasFields(schema: ObjectSchema | FieldSchema | undefined): boolean {
  return !!schema && (isPlainObject(schema.properties) || conditionsOf(schema).length > 0);
}

/**
 * Whether a condition's `if` holds for an object's value. A rule may test a field's value (`const`,
 * `enum`) or, for an object field such as the device picker, the fields inside it (`properties` and
 * `required`, tested the same way), e.g. "ADAM while the picker is on a real device".
 */
export function testCondition(test: Partial<ConditionTest>, value: unknown): boolean {
  const obj = isPlainObject(value) ? value : {};
  for (const name of test.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(obj, name) || obj[name] === undefined) return false;
  }
  for (const [name, rule] of Object.entries(test.properties ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(obj, name) || obj[name] === undefined) continue;
    const v = obj[name];
    if ('const' in rule && !deepEqual(v, rule.const)) return false;
    if (Array.isArray(rule.enum) && !rule.enum.some((e) => deepEqual(e, v))) return false;
    if ((rule.properties || rule.required) && !testCondition(rule, v)) return false;
  }
  return true;
}

/** Every field name an object schema declares (base first, then branches), in declaration order. */
export function declaredFieldNames(schema: ObjectSchema | FieldSchema): string[] {
  const names: string[] = Object.keys(schema.properties ?? {});
  for (const condition of conditionsOf(schema)) {
    for (const branch of [condition.then, condition.else]) {
      for (const name of Object.keys(branch?.properties ?? {})) if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}

interface ActiveBranch {
  key: string;
  branch: Branch;
}

function activeBranches(schema: ObjectSchema | FieldSchema, value: unknown): ActiveBranch[] {
  const out: ActiveBranch[] = [];
  conditionsOf(schema).forEach((condition, i) => {
    if (testCondition(condition.if, value)) out.push({ key: `${i}:then`, branch: condition.then });
    else if (condition.else) out.push({ key: `${i}:else`, branch: condition.else });
  });
  return out;
}

/** Resolves every declared field of an object schema against the object's current value. */
export function resolveFields(schema: ObjectSchema | FieldSchema, value: unknown): ResolvedField[] {
  const branches = activeBranches(schema, value);
  const baseRequired = new Set(schema.required ?? []);
  return declaredFieldNames(schema).map((name) => {
    const base = schema.properties?.[name];
    let merged: FieldSchema | undefined = base;
    let required = baseRequired.has(name);
    const keys: string[] = [];
    let branchDefault: { value: unknown } | undefined;
    for (const { key, branch } of branches) {
      const override = branch.properties?.[name];
      if (override) {
        merged = merged ? mergeSchemaOverride(merged, override) : override;
        keys.push(key);
        if ('default' in override) branchDefault = { value: override.default };
      }
      if (branch.required?.includes(name) && (override || base)) required = true;
    }
    const active = !!base || keys.length > 0;
    return {
      name,
      schema: merged ?? firstDeclaration(schema, name) ?? {},
      active,
      required: active && required,
      branchKey: keys.join(','),
      ...(branchDefault ? { branchDefault } : {}),
    };
  });
}

/** The field's schema regardless of the value: the base, merged with the first branch that mentions it. */
export function firstDeclaration(schema: ObjectSchema | FieldSchema, name: string): FieldSchema | undefined {
  const merged = schema.properties?.[name];
  for (const condition of conditionsOf(schema)) {
    for (const branch of [condition.then, condition.else]) {
      const override = branch?.properties?.[name];
      if (override) return merged ? mergeSchemaOverride(merged, override) : override;
    }
  }
  return merged;
}

/**
 * Drops the values of inactive and undeclared fields, recursively. Values of fields whose schema
 * declares no fields of its own (scalars, arrays, free objects) are kept as they are.
 */
export function pruneValue(schema: ObjectSchema | FieldSchema, value: unknown): unknown {
  if (!hasFields(schema) || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const field of resolveFields(schema, value)) {
    if (!field.active || !Object.prototype.hasOwnProperty.call(value, field.name)) continue;
    const v = value[field.name];
    if (v === undefined) continue;
    out[field.name] = pruneValue(field.schema, v);
  }
  return out;
}

/** Walks a field path (segments after the form key) through nested fields and array items. */
export function lookupField(
  schema: ObjectSchema | FieldSchema,
  segments: readonly string[],
  value?: unknown,
): { schema: FieldSchema; active: boolean; required: boolean } | undefined {
  let current: FieldSchema = schema as FieldSchema;
  let currentValue = value;
  let active = true;
  let required = true;
  for (const segment of segments) {
    if (current.items && /^\d+$/.test(segment)) {
      current = current.items;
      currentValue = Array.isArray(currentValue) ? currentValue[Number(segment)] : undefined;
      continue;
    }
    if (value === undefined) {
      const declared = firstDeclaration(current, segment);
      if (!declared) return undefined;
      current = declared;
      continue;
    }
    const field = resolveFields(current, currentValue).find((f) => f.name === segment);
    if (!field) return undefined;
    active = active && field.active;
    required = field.required;
    current = field.schema;
    currentValue = isPlainObject(currentValue) ? currentValue[segment] : undefined;
  }
  return { schema: current, active, required };
}
