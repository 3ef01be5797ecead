// @vitest-environment jsdom
// x-field.disabled: options the schema lists but the product does not build (brain tumor's QGANs,
// QVAE, QBMs) stay visible, cannot be chosen, show their reason, and app data naming one fails
// validation with that reason word for word; the checker refuses a disabled value outside the enum.

import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { checkSchemaSources, createExampleAppData, setFieldValue, validateAppData } from '../../engine';
import { loadSchemaSources } from '../../engine/node/load-schemas';
import { Harness, fieldOf, testRegistry } from './support';

afterEach(cleanup);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an edited copy of a schema file

const registry = testRegistry();
const brain = registry.getProblem('brain-tumor');
const reasons = brain.forms.model_configurations!.schema.properties!.model!['x-field']!.disabled!;

function quantumExample() {
  const example = createExampleAppData(brain);
  const appData = setFieldValue(
    brain,
    example.appData,
    '/model_configurations/modelType',
    'quantum',
    example.context,
  );
  return { appData, context: example.context };
}

describe('disabled options', () => {
  it('names the three models that are not built, each with a reason', () => {
    expect(Object.keys(reasons)).toEqual(['QGANs', 'QVAE', 'QBMs']);
    for (const reason of Object.values(reasons)) expect(reason).toMatch(/not available.*choose QCNN or QSVM/);
  });

  it('refuses a disabled model with its reason as the field error', () => {
    const { appData, context } = quantumExample();
    const chosen = setFieldValue(brain, appData, '/model_configurations/model', 'QVAE', context);
    const errors = validateAppData(brain, chosen, context).errors.filter(
      (e) => e.path === '/model_configurations/model',
    );
    expect(errors.map((e) => e.message)).toEqual([reasons.QVAE]);
    const qcnn = setFieldValue(brain, appData, '/model_configurations/model', 'QCNN', context);
    expect(validateAppData(brain, qcnn, context).errors.filter((e) => e.field === 'model')).toEqual([]);
  });

  it('lists disabled options as not selectable, with the reasons under the select', () => {
    const { appData, context } = quantumExample();
    const view = render(<Harness problem={brain} tab="model" initial={appData} context={context} />);
    const field = fieldOf(view.container, 'model', 'model');
    const options = [...field.querySelectorAll('option')].filter((o) => o.value !== '');
    const disabled = options.filter((o) => o.disabled).map((o) => [o.textContent, o.title]);
    expect(disabled).toEqual([
      ['QGANs (not available)', reasons.QGANs],
      ['QVAE (not available)', reasons.QVAE],
      ['QBMs (not available)', reasons.QBMs],
    ]);
    expect(options.filter((o) => !o.disabled).map((o) => o.textContent)).toEqual(['QCNN', 'QSVM']);
    expect([...field.querySelectorAll('li')].map((li) => li.textContent)).toEqual(Object.values(reasons));
  });

  it('the checker refuses a disabled value that is not one of the options', () => {
    const sources = loadSchemaSources();
    const file = 'problems/brain-tumor.json';
    const copy = structuredClone(sources[file]) as Json;
    copy.forms.model_configurations.schema.properties.model['x-field'].disabled = { QNope: 'no' };
    const reasons = checkSchemaSources({ ...sources, [file]: copy }).map((i) => i.reason);
    expect(reasons).toContain('disabled option "QNope" is not an enum value');
  });
});
