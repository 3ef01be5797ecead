// Reusable mapping fragments. A list of mapping entries several problems share (the device picker's
// use_quantum_simulator, quantum_device_backend and actual_quantum_device_token) lives once in
// defs.json as an array; a problem's job.body (or request params/query) names it in place with
// {"$ref": "defs.json#/$defs/<name>"} and the registry splices the entries in. Each spliced entry
// remembers where it came from, so the checker can point at the $ref in the problem file and name
// the entry inside the fragment.

import { deepClone, isPlainObject } from './json';
import { DEFS_REF_PREFIX, type IssueSink } from './refs';
import type { MappingEntry, MappingOrigin } from './types';

export function expandMappingFragments(
  items: readonly unknown[],
  defs: Record<string, unknown>,
  at: string,
  onIssue: IssueSink,
): { entries: MappingEntry[]; origins: MappingOrigin[] } {
  const entries: MappingEntry[] = [];
  const origins: MappingOrigin[] = [];
  items.forEach((item, i) => {
    const ref = isPlainObject(item) ? item.$ref : undefined;
    if (typeof ref !== 'string') {
      entries.push(deepClone(item) as MappingEntry);
      origins.push({ pointer: `${at}/${i}` });
      return;
    }
    const name = ref.startsWith(DEFS_REF_PREFIX) ? ref.slice(DEFS_REF_PREFIX.length) : '';
    const fragment = defs[name];
    if (!Object.prototype.hasOwnProperty.call(defs, name) || !Array.isArray(fragment)) {
      onIssue(
        `${at}/${i}/$ref`,
        `"${ref}" is not a mapping fragment (an array of entries in defs.json $defs)`,
      );
      return;
    }
    fragment.forEach((entry, j) => {
      entries.push(deepClone(entry) as MappingEntry);
      origins.push({ pointer: `${at}/${i}`, via: `${ref}/${j}` });
    });
  });
  return { entries, origins };
}

/**
 * Reports a finding about one mapping entry. For an entry written in the problem file the pointer
 * is the entry's (plus `suffix`, e.g. "/from"); for a spliced fragment entry it is the $ref item,
 * and the reason names the entry inside the fragment.
 */
export function reportEntry(
  report: (pointer: string, reason: string) => void,
  origin: MappingOrigin | undefined,
  suffix: string,
  reason: string,
): void {
  if (!origin) return;
  if (origin.via) report(origin.pointer, `${origin.via}${suffix}: ${reason}`);
  else report(origin.pointer + suffix, reason);
}
