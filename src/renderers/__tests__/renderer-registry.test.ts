// Every widget and field name the schema files use has a renderer, read from the files through the
// engine at test time (no list kept here), and a name nobody draws fails loudly.
import { describe, expect, it } from 'vitest';

import {
  createExampleAppData,
  getTabSections,
  isPlainObject,
  type Problem,
  type TabId,
  type UiSchema,
} from '../../engine';
import { RENDERER_FIELDS, RENDERER_WIDGETS, assertRenderable, rendererNamesOf } from '../renderer-registry';
import { allProblems } from './support';

const problems = allProblems();

/** The ui:widget / ui:field names in uiSchemas the engine actually produced. */
function uiNames(ui: UiSchema, out = { widgets: new Set<string>(), fields: new Set<string>() }) {
  if (typeof ui['ui:widget'] === 'string') out.widgets.add(ui['ui:widget']);
  if (typeof ui['ui:field'] === 'string') out.fields.add(ui['ui:field']);
  for (const [key, value] of Object.entries(ui)) {
    if (!key.startsWith('ui:') && isPlainObject(value)) uiNames(value as UiSchema, out);
  }
  return out;
}

/** The first object with an x-field in the problem's forms for which `pick` holds. */
function firstXField(problem: Problem, pick: (node: Record<string, unknown>) => boolean) {
  let found: Record<string, unknown> | undefined;
  const visit = (node: unknown): void => {
    if (found || !isPlainObject(node)) return Array.isArray(node) ? node.forEach(visit) : undefined;
    if (isPlainObject(node['x-field']) && pick(node)) found = node;
    else Object.values(node).forEach(visit);
  };
  visit(problem.forms);
  return found;
}

describe('the renderer registry', () => {
  it.each(problems.map((p) => [p.source, p] as const))(
    '%s: every widget and field it names is registered',
    (_source, problem) => {
      const { widgets, fields } = rendererNamesOf(problem);
      expect(widgets.size).toBeGreaterThan(0);
      expect([...widgets].filter((name) => !(name in RENDERER_WIDGETS))).toEqual([]);
      expect([...fields].filter((name) => !(name in RENDERER_FIELDS))).toEqual([]);
      expect(() => assertRenderable(problem)).not.toThrow();
    },
  );

  it.each(problems.map((p) => [p.source, p] as const))(
    '%s: the names read from the file include every name the engine puts in a uiSchema',
    (_source, problem) => {
      const { appData, context } = createExampleAppData(problem);
      const names = rendererNamesOf(problem);
      for (const tab of ['dataset', 'model'] as TabId[]) {
        for (const section of getTabSections(problem, tab, appData, context)) {
          const used = uiNames(section.uiSchema);
          expect([...used.widgets].filter((name) => !names.widgets.has(name))).toEqual([]);
          expect([...used.fields].filter((name) => !names.fields.has(name))).toEqual([]);
        }
      }
    },
  );

  it('refuses, naming the file, a widget nobody registered', () => {
    const problem = structuredClone(problems[0]!);
    const leaf = firstXField(problem, (node) => !isPlainObject(node.properties))!;
    leaf['x-field'] = { ...(leaf['x-field'] as object), widget: 'noSuchWidget' };
    expect(() => assertRenderable(problem)).toThrow(
      `${problem.source}: no renderer is registered for widget 'noSuchWidget'`,
    );
  });

  it('refuses a field (with sub-fields) nobody registered', () => {
    const problem = structuredClone(
      problems.find((p) => firstXField(p, (n) => isPlainObject(n.properties)))!,
    );
    const field = firstXField(problem, (node) => isPlainObject(node.properties))!;
    field['x-field'] = { ...(field['x-field'] as object), widget: 'noSuchField' };
    expect(() => assertRenderable(problem)).toThrow("no renderer is registered for field 'noSuchField'");
  });
});
