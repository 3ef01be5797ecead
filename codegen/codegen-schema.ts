// Prepares engine schemas for json-schema-to-typescript, avoiding its known pitfalls:
// - properties declared only in `then`/`else` are dropped (#426): hoist them into `properties`
//   (optional, since they are required only while their condition holds);
// - objects without additionalProperties:false get index signatures: set it on every object;
// - field titles would become separate exported types: fold them into the description;
// - engine keywords (x-field, x-default, x-minimum, errorMessage) and {"$data": ...} limits mean
//   nothing to TypeScript: drop them.

import { declaredFieldNames, firstDeclaration, hasFields, isPlainObject } from './engine-imports';
import type { FieldSchema, JsonSchema } from '../src/engine';

const DROPPED = new Set([
  'x-field',
  'x-default',
  'x-minimum',
  'errorMessage',
  '$comment',
  '$schema',
  'if',
  'then',
  'else',
]);

function unionEnum(schema: FieldSchema, name: string, variants: FieldSchema[]): FieldSchema {
  const enums = variants
    .map((v) => v.enum)
    .filter((e): e is NonNullable<FieldSchema['enum']> => Array.isArray(e));
  if (enums.length === 0) return schema;
  const merged: unknown[] = [];
  for (const list of enums)
    for (const v of list) if (!merged.some((m) => JSON.stringify(m) === JSON.stringify(v))) merged.push(v);
  void name;
  return { ...schema, enum: merged as FieldSchema['enum'] };
}

function branchVariants(schema: FieldSchema, name: string): FieldSchema[] {
  const out: FieldSchema[] = [];
  const base = schema.properties?.[name];
  if (base) out.push(base);
  for (const item of schema.allOf ?? []) {
    if (!isPlainObject(item) || !isPlainObject(item.if)) continue;
    for (const b of ['then', 'else'] as const) {
      const branch = (item as Record<string, unknown>)[b] as FieldSchema | undefined;
      const override = branch?.properties?.[name];
      if (override) out.push(override);
    }
  }
  return out;
}

/** Converts one (engine) schema node into what json-schema-to-typescript should see. */
export function toCodegenSchema(node: unknown, isRoot = true): unknown {
  if (Array.isArray(node)) return node.map((n) => toCodegenSchema(n, false));
  if (!isPlainObject(node)) return node;
  const schema = node as FieldSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === 'properties' || key === 'required' || key === 'allOf' || key === 'items') continue;
    if (isPlainObject(value) && typeof value.$data === 'string') continue;
    out[key] = value;
  }
  if (!isRoot && typeof schema.title === 'string') {
    delete out.title;
    out.description = schema.description ? `${schema.title}: ${schema.description}` : schema.title;
  }
  if (schema.items) out.items = toCodegenSchema(schema.items, false);
  if (hasFields(schema)) {
    const properties: Record<string, unknown> = {};
    for (const name of declaredFieldNames(schema)) {
      const variants = branchVariants(schema, name);
      const declared = firstDeclaration(schema, name) ?? {};
      const base = schema.properties?.[name];
      const merged = base ? unionEnum(base, name, variants) : unionEnum(declared, name, variants);
      properties[name] = toCodegenSchema(merged, false);
    }
    out.type = 'object';
    out.properties = properties;
    if (schema.required && schema.required.length > 0) out.required = [...schema.required];
    out.additionalProperties = false;
  } else if (
    schema.type === 'object' &&
    out.additionalProperties === undefined &&
    isPlainObject(schema.properties)
  ) {
    out.additionalProperties = false;
  }
  // Plain allOf items (extra limits) carry no type information; conditions are hoisted above.
  return out;
}
