// rjsf reports a change as the whole form object; the engine takes changes by path (so that it can
// apply branch defaults to exactly what changed). This turns one into the other.

import { isPlainObject, joinPointer } from '../engine';
import type { FieldChange } from './form-context';

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!sameValue(a[k], b[k])) return false;
    return true;
  }
  return false;
}

function diffValue(path: string, before: unknown, after: unknown, out: FieldChange[]): void {
  if (sameValue(before, after)) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      diffValue(joinPointer(path, key), before[key], after[key], out);
    }
    return;
  }
  out.push({ path, value: after });
}

/**
 * The leaf changes between two values of a form object, limited to the given field names
 * (a section renders only some fields of its form). Objects are compared key by key, arrays and
 * primitives as a whole; `undefined` in `after` means the value was removed.
 */
export function diffFormValues(
  formPath: string,
  fieldNames: readonly string[],
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const name of fieldNames) diffValue(joinPointer(formPath, name), before[name], after[name], out);
  return out;
}

/** The values of some fields of a form object (a section's slice of it). */
export function pickFields(value: unknown, fieldNames: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isPlainObject(value)) return out;
  for (const name of fieldNames) if (value[name] !== undefined) out[name] = value[name];
  return out;
}
