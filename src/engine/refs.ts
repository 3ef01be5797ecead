// Inlines shared definitions. A field written as {"$ref": "defs.json#/$defs/epochs", "default": 50}
// becomes the definition with `default` replaced: keys next to $ref override the definition's keys
// (x-field and errorMessage are merged key by key). Inlining keeps every compiled schema
// self-contained: the same object goes to ajv, to codegen and to the renderer.

import { deepClone, isPlainObject } from './json';
import { formatPointer } from './pointer';

export const DEFS_REF_PREFIX = 'defs.json#/$defs/';

/** Keys whose object values are merged key by key instead of replaced. */
const MERGED_KEYS = new Set(['x-field', 'errorMessage']);

export function mergeSchemaOverride<T extends Record<string, unknown>>(
  base: T,
  override: Record<string, unknown>,
): T {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = out[key];
    if (MERGED_KEYS.has(key) && isPlainObject(current) && isPlainObject(value)) {
      const merged: Record<string, unknown> = { ...current, ...value };
      if (key === 'errorMessage' && isPlainObject(current.required) && isPlainObject(value.required)) {
        merged.required = { ...current.required, ...value.required };
      }
      out[key] = merged;
    } else {
      out[key] = value;
    }
  }
  return out as T;
}

export type IssueSink = (pointer: string, reason: string) => void;

/**
 * Returns a deep copy of `node` with every `defs.json#/$defs/<name>` reference inlined.
 * Unknown references and cycles are reported to `onIssue` (pointer relative to `node`) and dropped.
 */
export function inlineRefs(
  node: unknown,
  defs: Record<string, unknown>,
  onIssue: IssueSink = () => {},
  path: string[] = [],
  stack: string[] = [],
): unknown {
  if (Array.isArray(node))
    return node.map((v, i) => inlineRefs(v, defs, onIssue, [...path, String(i)], stack));
  if (!isPlainObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === 'string') {
    const { $ref: _ignored, ...siblings } = node;
    const inlinedSiblings = inlineRefs(siblings, defs, onIssue, path, stack) as Record<string, unknown>;
    if (!ref.startsWith(DEFS_REF_PREFIX)) {
      onIssue(formatPointer([...path, '$ref']), `only "${DEFS_REF_PREFIX}<name>" references are supported`);
      return inlinedSiblings;
    }
    const name = ref.slice(DEFS_REF_PREFIX.length);
    if (!Object.prototype.hasOwnProperty.call(defs, name)) {
      onIssue(
        formatPointer([...path, '$ref']),
        `unknown shared definition "${name}" (not in defs.json $defs)`,
      );
      return inlinedSiblings;
    }
    if (stack.includes(name)) {
      onIssue(formatPointer([...path, '$ref']), `circular reference: ${[...stack, name].join(' -> ')}`);
      return inlinedSiblings;
    }
    const resolved = inlineRefs(deepClone(defs[name]), defs, onIssue, path, [...stack, name]);
    return mergeSchemaOverride(resolved as Record<string, unknown>, inlinedSiblings);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = inlineRefs(value, defs, onIssue, [...path, key], stack);
  }
  return out;
}
