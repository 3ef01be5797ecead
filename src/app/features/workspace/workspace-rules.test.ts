// The workspace's pure rules: tab order and labels from platform.json, the Pipeline gate, markers, the
// save failure text and the dataset facts of the engine context.

import { describe, expect, it } from 'vitest';
import { createExampleAppData, getPipelineStatus } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { ApiError } from '../../api/client';
import {
  datasetFacts,
  incompleteTabs,
  sameFacts,
  saveFailureText,
  TAB,
  tabGate,
  workspaceTabs,
} from './workspace-rules';

const fraud = browserRegistry().getProblem('fraud-detection');
const example = createExampleAppData(fraud);
const complete = getPipelineStatus(fraud, example.appData, example.context);
const blank = getPipelineStatus(fraud, {}, {});

describe('workspace rules', () => {
  it('lists the four tabs in index order with their platform.json labels', () => {
    expect(workspaceTabs(fraud).map((t) => [t.index, t.label])).toEqual([
      [0, 'Dataset'],
      [1, 'Model Configurations'],
      [2, 'Pipeline'],
      [3, 'Outputs'],
    ]);
  });

  it('opens every tab but the Pipeline while incomplete, which says why', () => {
    expect(complete.valid).toBe(true);
    for (const index of Object.values(TAB)) expect(tabGate(index, complete)).toEqual({ open: true });
    expect(tabGate(TAB.dataset, blank)).toEqual({ open: true });
    expect(tabGate(TAB.model, blank)).toEqual({ open: true });
    expect(tabGate(TAB.outputs, blank)).toEqual({ open: true });
    expect(tabGate(TAB.pipeline, blank)).toEqual({
      open: false,
      warning: 'Please fill the required fields in the Dataset and Configurations tabs.',
    });
  });

  it('marks the incomplete tabs only', () => {
    expect([...incompleteTabs(blank)].sort()).toEqual(['dataset', 'model']);
    expect(incompleteTabs(complete).size).toBe(0);
    const modelOnly = getPipelineStatus(fraud, {
      model_configurations: example.appData.model_configurations,
    });
    expect([...incompleteTabs(modelOnly)]).toEqual(['dataset']);
  });

  it("words a refused save as 'Failed to save the application! {server detail}'", () => {
    const refused = new ApiError('Save application failed: Invalid app_data', 400, {
      detail: 'Invalid app_data',
    });
    expect(saveFailureText(refused)).toBe('Failed to save the application! Invalid app_data');
    expect(saveFailureText(new ApiError('Save application failed', 0, null))).toBe(
      'Failed to save the application! Save application failed',
    );
    expect(saveFailureText(new Error('offline'))).toBe('Failed to save the application! offline');
  });

  it("takes the parsed dataset's rows and columns for the engine context, none before parsing", () => {
    const parsed = { columns: ['a', 'b'], rowCount: 12, droppedRows: 1, preview: [] };
    expect(datasetFacts(null)).toEqual({});
    expect(datasetFacts(parsed)).toEqual({ rowCount: 12, columns: ['a', 'b'] });
    expect(sameFacts(datasetFacts(parsed), { rowCount: 12, columns: ['a', 'b'] })).toBe(true);
    expect(sameFacts(datasetFacts(parsed), { rowCount: 12, columns: ['a'] })).toBe(false);
    expect(sameFacts(datasetFacts(parsed), {})).toBe(false);
    expect(sameFacts({}, {})).toBe(true);
  });
});
