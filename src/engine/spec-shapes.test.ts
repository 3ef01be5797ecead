// app_data in the specification's shapes (workspace.md section 3) normalised to the stored shape,
// and the stored shape left as it is.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import { mapJobBody, normalizeAppData, validateAppData, type AppData } from './index';

const registry = loadRegistry();
const stock = registry.getProblem('stock-price-prediction');
const portfolio = registry.getProblem('portfolio-optimization');
const brain = registry.getProblem('brain-tumor');
const example = (id: string) => structuredClone(registry.getProblem(id).example.appData) as AppData;

describe('normalizeAppData', () => {
  it('leaves every shipped example (the stored shape) unchanged', () => {
    for (const problem of registry.problems) {
      const appData = example(problem.id);
      expect(normalizeAppData(problem, appData), problem.id).toEqual(appData);
    }
  });

  it("nests the spec's flat quantum device fields and renames training_model_type", () => {
    const stored = example(stock.id);
    const config = stored.model_configurations as Record<string, unknown>;
    const { model_type, quantum_device, ...rest } = config;
    const spec: AppData = {
      ...stored,
      model_configurations: {
        ...rest,
        training_model_type: model_type,
        ...(quantum_device as object),
      },
    };
    expect(validateAppData(stock, spec).valid).toBe(false);
    const normalized = normalizeAppData(stock, spec);
    expect(normalized).toEqual(stored);
    expect(validateAppData(stock, normalized).errors).toEqual([]);
    // modelType is the spec's other name for it
    const other = { ...stored, model_configurations: { ...rest, modelType: model_type, quantum_device } };
    expect(normalizeAppData(stock, other)).toEqual(stored);
  });

  it("a flat quantum_device naming a real device becomes the device's act_quantum_device", () => {
    const stored = example(portfolio.id);
    const spec = structuredClone(stored);
    Object.assign(spec.model_configurations!, {
      quantum_device: 'ibm_brisbane',
      use_quantum_sim: false,
      check_custom_ibm_token: false,
    });
    const device = (normalizeAppData(portfolio, spec).model_configurations as Record<string, unknown>)
      .quantum_device;
    expect(device).toEqual({
      use_quantum_sim: false,
      check_custom_ibm_token: false,
      act_quantum_device: 'ibm_brisbane',
    });
  });

  it("moves brain tumor's fromIndex/toIndex to the training range and drops userId/appId", () => {
    const stored = example(brain.id);
    const range = (stored.dataset as { training_range: { from_index: number; to_index: number } })
      .training_range;
    const spec = structuredClone(stored);
    delete (spec.dataset as Record<string, unknown>).training_range;
    Object.assign(spec.model_configurations!, {
      fromIndex: range.from_index,
      toIndex: range.to_index,
      userId: 7,
      appId: 9,
    });
    expect(normalizeAppData(brain, spec)).toEqual(stored);
    // a stored range wins over the configuration's copy
    const both = structuredClone(stored);
    Object.assign(both.model_configurations!, { fromIndex: 5, toIndex: 50 });
    expect(normalizeAppData(brain, both)).toEqual(stored);
  });

  it('strips carriage returns from the feature and stock name lists, as the job body does', () => {
    const spec = example(stock.id);
    Object.assign(spec.preprocess!, {
      training_features: ['Close\r', 'High'],
      prediction_features: ['Close\r'],
    });
    const normalized = normalizeAppData(stock, spec);
    expect(normalized.preprocess).toMatchObject({
      training_features: ['Close', 'High'],
      prediction_features: ['Close'],
    });
    const body = mapJobBody(stock, normalized, { applicationId: 1, userId: 1 });
    expect(body.training_features).toEqual(['Close', 'High']);
    const stocks = example(portfolio.id);
    (stocks.preprocess as Record<string, unknown>).stocks_names = ['AAPL\r', 'GOOG'];
    expect((normalizeAppData(portfolio, stocks).preprocess as Record<string, unknown>).stocks_names).toEqual([
      'AAPL',
      'GOOG',
    ]);
  });
});
