// The job extension: what the worker gets beside the spec's body (normalization, missing values,
// fraud's target column), mapped from app_data by each problem file's optional job.extension.

import { describe, expect, it } from 'vitest';

import {
  checkSchemaSources,
  createExampleAppData,
  JOB_EXTENSION_KEYS,
  mapJobExtension,
  setFieldValue,
} from '.';
import { loadRegistry, loadSchemaSources } from './node/load-schemas';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test fixtures are edited freely

const registry = loadRegistry();

function example(id: string) {
  const problem = registry.getProblem(id);
  return { problem, ...createExampleAppData(problem) };
}

describe('mapJobExtension', () => {
  it('carries the stock and demand preprocessing the user chose', () => {
    for (const id of ['stock-price-prediction', 'demand-forecasting']) {
      const { problem, appData } = example(id);
      expect(mapJobExtension(problem, appData)).toMatchObject({
        normalization: '[0,1]',
        missing_values: 'impute_average',
        target_column: null,
      });
      const edited = structuredClone(appData) as Json;
      edited.preprocess.normalization = '[-1,1]';
      edited.preprocess.missing_values = 'remove_rows';
      expect(mapJobExtension(problem, edited)).toMatchObject({
        normalization: '[-1,1]',
        missing_values: 'remove_rows',
      });
    }
  });

  it("carries fraud detection's target column, without a CSV header's carriage return", () => {
    const { problem, appData } = example('fraud-detection');
    expect(mapJobExtension(problem, appData)).toEqual({
      normalization: '[0,1]',
      missing_values: 'impute_average',
      target_column: 'Class',
      quantum_noise_model: 'None',
      range: null,
      split: null,
      step_size: null,
      recall_target: null,
      repeats: 1,
    });
    const edited = structuredClone(appData) as Json;
    edited.preprocess.column = 'is_fraud\r';
    edited.preprocess.missing_values = 'random_values';
    expect(mapJobExtension(problem, edited)).toMatchObject({
      target_column: 'is_fraud',
      missing_values: 'random_values',
    });
    // The recall target rides along only when the Decision Threshold asks for one.
    edited.model_configurations.threshold_rule = 'recall';
    edited.model_configurations.recall_target = 0.9;
    expect(mapJobExtension(problem, edited)).toMatchObject({ recall_target: 0.9 });
    edited.model_configurations.threshold_rule = 'f1';
    expect(mapJobExtension(problem, edited)).toMatchObject({ recall_target: null });
  });

  it('is all null for a problem whose file declares no extension', () => {
    const { problem: declared, appData } = example('vehicle-routing');
    // Every shipped problem declares one now: the same problem without it stands in.
    const problem = { ...declared, job: { ...declared.job, extension: undefined } };
    expect(mapJobExtension(problem, appData)).toEqual(
      Object.fromEntries(JOB_EXTENSION_KEYS.map((key) => [key, null])),
    );
  });

  it("carries the device picker's noise model, and null when the simulator is not used", () => {
    for (const id of [
      'fraud-detection',
      'stock-price-prediction',
      'portfolio-optimization',
      'vehicle-routing',
    ]) {
      const { problem, appData } = example(id);
      const noisy = structuredClone(appData) as Json;
      noisy.model_configurations.quantum_device.quantum_noise_model = 'fake_brisbane';
      expect(mapJobExtension(problem, noisy).quantum_noise_model, id).toBe('fake_brisbane');
      const device = structuredClone(noisy) as Json;
      device.model_configurations.quantum_device.use_quantum_sim = false;
      device.model_configurations.quantum_device.act_quantum_device = 'ibm_brisbane';
      expect(mapJobExtension(problem, device).quantum_noise_model, id).toBeNull();
    }
  });

  it('carries the brain tumor training range and validation split (stratified unless chosen)', () => {
    const { problem, appData } = example('brain-tumor');
    expect(mapJobExtension(problem, appData)).toMatchObject({
      range: { start: 1, end: 100 },
      split: 'stratified',
    });
    let edited = setFieldValue(problem, appData, '/dataset/training_range', { from_index: 7, to_index: 30 });
    edited = setFieldValue(problem, edited, '/dataset/split', 'patient');
    expect(mapJobExtension(problem, edited)).toMatchObject({
      range: { start: 7, end: 30 },
      split: 'patient',
    });
    const unset = structuredClone(appData) as Json;
    delete unset.dataset.split;
    expect(mapJobExtension(problem, unset).split).toBe('stratified');
  });

  it("carries the brain tumor QCNN's Step Size (the spec's body has no key for it), and null for a classical model", () => {
    const { problem, appData } = example('brain-tumor');
    expect(mapJobExtension(problem, appData).step_size).toBeNull();
    let quantum = setFieldValue(problem, appData, '/model_configurations/modelType', 'quantum');
    quantum = setFieldValue(problem, quantum, '/model_configurations/model', 'QCNN');
    quantum = setFieldValue(problem, quantum, '/model_configurations/stepSize', 2);
    expect(mapJobExtension(problem, quantum).step_size).toBe(2);
  });

  it('leaves a value out when its field is absent (null, not undefined)', () => {
    const { problem, appData } = example('stock-price-prediction');
    const edited = structuredClone(appData) as Json;
    delete edited.preprocess.normalization;
    expect(mapJobExtension(problem, edited).normalization).toBeNull();
  });

  it('follows a form edit through setFieldValue like the body does', () => {
    const { problem, appData } = example('demand-forecasting');
    const edited = setFieldValue(problem, appData, '/preprocess/normalization', '[-1,1]');
    expect(mapJobExtension(problem, edited).normalization).toBe('[-1,1]');
  });
});

describe('job.extension in the schema checker', () => {
  const FRAUD = 'problems/fraud-detection.json';
  function reasonsAfter(edit: (json: Json) => void): string[] {
    const sources = loadSchemaSources();
    const copy = structuredClone(sources[FRAUD]) as Json;
    edit(copy);
    // Of the problem files only this one: a problem is checked against the shared files, never
    // against another problem ('accepts the shipped files' checks them all).
    const kept = Object.entries(sources).filter(([name]) => !name.startsWith('problems/'));
    return checkSchemaSources({ ...Object.fromEntries(kept), [FRAUD]: copy }).map(
      (i) => `${i.pointer}: ${i.reason}`,
    );
  }

  it('accepts the shipped files', () => {
    expect(checkSchemaSources(loadSchemaSources())).toEqual([]);
  });

  it('refuses a target outside the extension keys', () => {
    let at = -1;
    const reasons = reasonsAfter((j) => (at = j.job.extension.push({ to: '/colour', const: 'red' }) - 1));
    expect(reasons).toContain(`/job/extension/${at}/to: /colour is not a property of the job extension`);
  });

  it('refuses a source that is not a field of app_data', () => {
    const reasons = reasonsAfter((j) => (j.job.extension[0].from = '/preprocess/nope'));
    expect(reasons.some((r) => r.startsWith('/job/extension/0/from:'))).toBe(true);
  });
});

it('fraud detection labels its split "Test Share" (the value is the share held out for testing)', () => {
  const problem = registry.getProblem('fraud-detection');
  const split = (problem.forms.dataset.schema.properties as Json).train_test_split;
  expect(split.title).toBe('Test Share');
});
