// Fraud detection's Decision Threshold fields: the recall target appears with its rule, carries its
// default, and is refused outside 0.5..0.99 with the problem file's message on its own path.

import { describe, expect, it } from 'vitest';

import { createExampleAppData, setFieldValue, validateAppData, type AppData } from '.';
import { loadRegistry } from './node/load-schemas';

const fraud = loadRegistry().getProblem('fraud-detection');
const models = (appData: AppData) => appData.model_configurations as Record<string, unknown>;

describe('the fraud Decision Threshold fields', () => {
  it('default to the best F1, and a recall target of 0.8 when that rule is chosen', () => {
    const { appData } = createExampleAppData(fraud);
    expect(validateAppData(fraud, appData).valid).toBe(true);
    const recall = setFieldValue(fraud, appData, '/model_configurations/threshold_rule', 'recall');
    expect(models(recall)).toMatchObject({ threshold_rule: 'recall', recall_target: 0.8 });
    expect(validateAppData(fraud, recall).valid).toBe(true);
  });

  it('refuse a recall target outside 0.5..0.99 with the form message', () => {
    const { appData } = createExampleAppData(fraud);
    const recall = setFieldValue(fraud, appData, '/model_configurations/threshold_rule', 'recall');
    for (const value of [0.3, 1]) {
      const bad = setFieldValue(fraud, recall, '/model_configurations/recall_target', value);
      const result = validateAppData(fraud, bad);
      expect(result.valid).toBe(false);
      expect(result.errors).toContainEqual(
        expect.objectContaining({
          path: '/model_configurations/recall_target',
          message: 'Recall target must be between 0.5 and 0.99',
        }),
      );
    }
  });
});
