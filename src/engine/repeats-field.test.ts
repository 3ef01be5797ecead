// The Repeats setting (repeated seeds): one shared declaration in defs.json that every problem's
// model form uses. It defaults to 1, stops at 10, is refused above with the form's message on its
// own path, and travels in the job extension (the spec's body stays as specified).

import { describe, expect, it } from 'vitest';

import {
  createDefaultAppData,
  createExampleAppData,
  mapJobBody,
  mapJobExtension,
  setFieldValue,
  validateAppData,
  type AppData,
} from '.';
import { loadRegistry } from './node/load-schemas';

const registry = loadRegistry();
const problems = registry.listProblems({ includeUnlisted: true }).map((p) => registry.getProblem(p.id));
const models = (appData: AppData) => appData.model_configurations as Record<string, unknown>;

describe('the Repeats field', () => {
  it('is declared once and used by every problem file', () => {
    expect(problems.length).toBeGreaterThanOrEqual(6);
    for (const problem of problems) {
      const sections = problem.forms.model_configurations.sections ?? [];
      expect(
        sections.some((s) => s.fields.includes('repeats')),
        `${problem.id} shows repeats`,
      ).toBe(true);
    }
  });

  it.each(problems.map((p) => [p.id, p] as const))(
    '%s: defaults to 1 and maps it to the extension',
    (_id, problem) => {
      expect(models(createDefaultAppData(problem)).repeats).toBe(1);
      const { appData } = createExampleAppData(problem);
      // An example saved before the field existed runs once.
      const withoutRepeats = structuredClone(appData);
      delete models(withoutRepeats).repeats;
      expect(mapJobExtension(problem, withoutRepeats).repeats).toBe(1);
      const three = setFieldValue(problem, appData, '/model_configurations/repeats', 3);
      expect(validateAppData(problem, three).errors.filter((e) => e.path.endsWith('/repeats'))).toEqual([]);
      expect(mapJobExtension(problem, three).repeats).toBe(3);
      expect(mapJobBody(problem, three)).not.toHaveProperty('repeats');
      expect(mapJobBody(problem, three)).toEqual(mapJobBody(problem, appData));
    },
  );

  it.each(problems.map((p) => [p.id, p] as const))(
    '%s: 10 is the most, 0 and 11 are refused on /model_configurations/repeats',
    (_id, problem) => {
      const { appData } = createExampleAppData(problem);
      const ten = setFieldValue(problem, appData, '/model_configurations/repeats', 10);
      expect(validateAppData(problem, ten).errors.filter((e) => e.path.endsWith('/repeats'))).toEqual([]);
      for (const [value, message] of [
        [11, 'Repeats must be at most 10'],
        [0, 'Repeats must be at least 1'],
        [2.5, 'Repeats must be a whole number'],
      ] as const) {
        const bad = setFieldValue(problem, appData, '/model_configurations/repeats', value);
        const result = validateAppData(problem, bad);
        expect(result.valid).toBe(false);
        expect(result.errors).toContainEqual(
          expect.objectContaining({ path: '/model_configurations/repeats', message }),
        );
      }
    },
  );
});
