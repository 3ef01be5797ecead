// The query a specification client sends instead of the mapped one (the problem file's
// job.request.specQueries), accepted as the mapped query while its condition holds.

import { deepEqual } from './json';
import { getPointer } from './pointer';
import type { AppData, Problem } from './types';

/**
 * The problem's spec query that applies to `appData` and that `sent` carries (every key it names,
 * compared as text, as a query string is), or null. The caller reads the saved application's query
 * instead of the sent one.
 */
export function matchingSpecQuery(
  problem: Problem,
  appData: AppData,
  sent: Record<string, unknown>,
): Record<string, string | number | boolean> | null {
  for (const spec of problem.job.request.specQueries ?? []) {
    if (!deepEqual(getPointer(appData, spec.when.pointer), spec.when.equals)) continue;
    const carried = Object.entries(spec.query).every(
      ([key, value]) => sent[key] !== undefined && String(sent[key]) === String(value),
    );
    if (carried) return spec.query;
  }
  return null;
}
