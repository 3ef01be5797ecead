// A problem's job-body schema may say {"$ref": "defs.json#/$defs/epochs"} where a body property is
// the very rule the form uses, so the rule has one home. The worker resolves such refs with a
// standard JSON Schema resolver (defs.json registered under its file name); the engine inlines them
// here and keeps only the validation keywords, so the body schema stays plain JSON Schema (no
// x-field, errorMessage or titles that would rename generated types) and means the same to ajv,
// to codegen and to Python's jsonschema.

import { isPlainObject } from './json';
import { formatPointer } from './pointer';
import { DEFS_REF_PREFIX, type IssueSink } from './refs';
import type { JsonSchema } from './types';

/** Keywords a definition keeps when a body schema refers to it: validation only. */
const BODY_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'properties',
  'required',
  'additionalProperties',
]);

/** Siblings a body-schema $ref may have: annotations only (under JSON Schema a sibling would add a rule). */
const REF_SIBLINGS = new Set(['$comment', 'description']);

function plainDefinition(
  def: unknown,
  defs: Record<string, unknown>,
  onIssue: IssueSink,
  path: string[],
  stack: string[],
): unknown {
  if (!isPlainObject(def)) return def;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(def)) {
    if (!BODY_KEYWORDS.has(key)) {
      if (key === 'allOf' || key === 'x-minimum') {
        onIssue(formatPointer(path), `the shared definition uses "${key}", which a job body cannot`);
      }
      continue;
    }
    if (isPlainObject(value) && '$data' in value) {
      onIssue(
        formatPointer(path),
        `the shared definition's "${key}" is a $data limit, which a job body cannot use`,
      );
      continue;
    }
    if (key === 'properties' && isPlainObject(value)) {
      const props: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(value)) {
        props[name] = resolveNode(sub, defs, onIssue, [...path, 'properties', name], stack, true);
      }
      out[key] = props;
    } else if (key === 'items') {
      out[key] = resolveNode(value, defs, onIssue, [...path, 'items'], stack, true);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function resolveNode(
  node: unknown,
  defs: Record<string, unknown>,
  onIssue: IssueSink,
  path: string[],
  stack: string[],
  inDefinition: boolean,
): unknown {
  if (Array.isArray(node))
    return node.map((v, i) => resolveNode(v, defs, onIssue, [...path, String(i)], stack, inDefinition));
  if (!isPlainObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    for (const key of Object.keys(node)) {
      if (key !== '$ref' && !REF_SIBLINGS.has(key)) {
        onIssue(
          formatPointer([...path, key]),
          `"${key}" next to a $ref in a job-body schema would be a second rule; put it in the definition or drop the $ref`,
        );
      }
    }
    const name = ref.startsWith(DEFS_REF_PREFIX) ? ref.slice(DEFS_REF_PREFIX.length) : undefined;
    if (name === undefined) {
      onIssue(formatPointer([...path, '$ref']), `only "${DEFS_REF_PREFIX}<name>" references are supported`);
      return {};
    }
    if (!Object.prototype.hasOwnProperty.call(defs, name)) {
      onIssue(
        formatPointer([...path, '$ref']),
        `unknown shared definition "${name}" (not in defs.json $defs)`,
      );
      return {};
    }
    if (stack.includes(name)) {
      onIssue(formatPointer([...path, '$ref']), `circular reference: ${[...stack, name].join(' -> ')}`);
      return {};
    }
    return plainDefinition(defs[name], defs, onIssue, path, [...stack, name]);
  }
  if (inDefinition) return plainDefinition(node, defs, onIssue, path, stack);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = resolveNode(value, defs, onIssue, [...path, key], stack, false);
  }
  return out;
}

/**
 * The body schema with every `defs.json#/$defs/<name>` reference replaced by the definition's
 * validation keywords. Unknown references, rule-adding siblings and definitions a plain JSON
 * Schema cannot express are reported (pointer relative to the body schema).
 */
export function resolveBodySchema(
  bodySchema: JsonSchema,
  defs: Record<string, unknown>,
  onIssue: IssueSink = () => {},
): JsonSchema {
  return resolveNode(bodySchema, defs, onIssue, [], [], false) as JsonSchema;
}
