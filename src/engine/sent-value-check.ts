// A job body value a client sent that differs from the saved application: the problem file's own
// refusals of that value (its form field's limits), so a refusal can lead with them.

import { deepClone } from './json';
import { setPointer } from './pointer';
import type { AppData, EngineContext, FieldError, Problem } from './types';
import { validateAppData } from './validate';

/**
 * The form errors the saved application would have if its field behind `bodyPointer` held `sent`
 * ('Epochs must be less than or equal to 100'); empty when the value breaks no form rule, or when the
 * body key is not copied from one field unchanged (a context value, a constant, a transform).
 */
export function sentValueErrors(
  problem: Problem,
  appData: AppData,
  bodyPointer: string,
  sent: unknown,
  context: EngineContext = {},
): FieldError[] {
  if (sent === undefined) return [];
  const entry = problem.job.body.find(
    (e) => e.to === bodyPointer && typeof e.from === 'string' && !e.transform && !e.when,
  );
  if (!entry || typeof entry.from !== 'string') return [];
  const source = entry.from;
  const changed = deepClone(appData ?? {});
  setPointer(changed, source, deepClone(sent));
  return validateAppData(problem, changed, context).errors.filter(
    (e) => e.path === source || e.path.startsWith(`${source}/`),
  );
}
