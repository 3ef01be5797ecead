// Conditional fields: one condition drives shown and required; inactive values are pruned;
// branch defaults are applied by the engine.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import {
  createDefaultAppData,
  createExampleAppData,
  getTabSections,
  pruneAppData,
  resolveFields,
  setFieldValue,
  testCondition,
  type AppData,
  type Problem,
} from './index';

const registry = loadRegistry();
const stock = registry.getProblem('stock-price-prediction');
const portfolio = registry.getProblem('portfolio-optimization');
const fraud = registry.getProblem('fraud-detection');
const brain = registry.getProblem('brain-tumor');

const model = (data: AppData) => data.model_configurations as Record<string, unknown>;
const shownModelFields = (problem: Problem, data: AppData) =>
  getTabSections(problem, 'model', data)
    .flatMap((s) => s.fields)
    .map((f) => [f.name, f.required] as const);

describe('one condition drives shown and required', () => {
  it('qubits and the device picker are shown and required exactly for Quantum', () => {
    const blank = createDefaultAppData(stock);
    expect(shownModelFields(stock, blank).map(([n]) => n)).not.toContain('qubits');
    const quantum = setFieldValue(stock, blank, '/model_configurations/model_type', 'Quantum');
    expect(shownModelFields(stock, quantum)).toEqual(
      expect.arrayContaining([
        ['qubits', true],
        ['quantum_device', true],
      ]),
    );
    const classical = setFieldValue(stock, quantum, '/model_configurations/model_type', 'Classical');
    expect(shownModelFields(stock, classical).map(([n]) => n)).not.toContain('qubits');
  });

  it('an absent tested field never passes a condition (required inside every if)', () => {
    const test = { properties: { model_type: { const: 'Quantum' } }, required: ['model_type'] };
    expect(testCondition(test, {})).toBe(false);
    expect(testCondition(test, { model_type: 'Quantum' })).toBe(true);
    const fields = resolveFields(stock.forms.model_configurations.schema, {});
    expect(fields.find((f) => f.name === 'qubits')).toMatchObject({ active: false, required: false });
  });

  it('a condition may test the fields inside an object field (the device picker)', () => {
    const test = {
      properties: {
        optimizer_algorithm: { const: 'ADAM' },
        quantum_device: { properties: { use_quantum_sim: { const: false } }, required: ['use_quantum_sim'] },
      },
      required: ['optimizer_algorithm', 'quantum_device'],
    };
    const onDevice = { use_quantum_sim: false, act_quantum_device: 'ibm_kyiv' };
    expect(testCondition(test, { optimizer_algorithm: 'ADAM', quantum_device: onDevice })).toBe(true);
    expect(
      testCondition(test, { optimizer_algorithm: 'ADAM', quantum_device: { use_quantum_sim: true } }),
    ).toBe(false);
    expect(testCondition(test, { optimizer_algorithm: 'ADAM', quantum_device: {} })).toBe(false);
    expect(testCondition(test, { optimizer_algorithm: 'SPSA', quantum_device: onDevice })).toBe(false);
  });

  it('the device picker: noise model only in simulator mode, token only when ticked', () => {
    const picker = resolveFields(
      stock.forms.model_configurations.schema,
      model(createExampleAppData(stock).appData),
    ).find((f) => f.name === 'quantum_device')!.schema;
    const sim = resolveFields(picker, { use_quantum_sim: true, check_custom_ibm_token: false });
    expect(sim.filter((f) => f.active).map((f) => f.name)).toEqual([
      'use_quantum_sim',
      'check_custom_ibm_token',
      'sim_quantum_device',
      'quantum_noise_model',
    ]);
    const real = resolveFields(picker, { use_quantum_sim: false, check_custom_ibm_token: true });
    expect(real.filter((f) => f.active).map((f) => [f.name, f.required])).toEqual([
      ['use_quantum_sim', true],
      ['check_custom_ibm_token', false],
      ['act_quantum_device', true],
      ['custom_ibm_token', true],
    ]);
  });
});

describe('branch defaults', () => {
  it('Quantum sets optimizer VQE, Classical sets Classical (portfolio)', () => {
    let data = createDefaultAppData(portfolio);
    data = setFieldValue(portfolio, data, '/model_configurations/model_type', 'Quantum');
    expect(model(data).optimizer_type).toBe('VQE');
    data = setFieldValue(portfolio, data, '/model_configurations/optimizer_type', 'QAOA');
    data = setFieldValue(portfolio, data, '/model_configurations/model_type', 'Classical');
    expect(model(data).optimizer_type).toBe('Classical');
    data = setFieldValue(portfolio, data, '/model_configurations/model_type', 'Quantum');
    expect(model(data).optimizer_type).toBe('VQE');
  });

  it("Quantum sets method 'Variational Quantum Classifier', Classical sets SVM (fraud)", () => {
    let data = createDefaultAppData(fraud);
    data = setFieldValue(fraud, data, '/model_configurations/model_type', 'Quantum');
    expect(model(data).method).toBe('Variational Quantum Classifier');
    data = setFieldValue(fraud, data, '/model_configurations/model_type', 'Classical');
    expect(model(data).method).toBe('SVM');
    data = setFieldValue(fraud, data, '/model_configurations/method', 'Random Forest');
    data = setFieldValue(fraud, data, '/model_configurations/device', 'GPU');
    expect(model(data).method).toBe('Random Forest');
  });

  it('a field that appears gets its default; the device picker starts in simulator mode with the first simulator', () => {
    const data = setFieldValue(
      stock,
      createDefaultAppData(stock),
      '/model_configurations/model_type',
      'Quantum',
    );
    expect(model(data)).toMatchObject({
      training_model_method: 'Quantum',
      qubits: 4,
      quantum_device: {
        use_quantum_sim: true,
        sim_quantum_device: 'aer_simulator_statevector',
        quantum_noise_model: 'None',
        check_custom_ibm_token: false,
      },
    });
    expect(model(data)).not.toHaveProperty('quantum_device.act_quantum_device');
  });

  it('brain tumor: quantum model and batch size follow the model type', () => {
    let data = createExampleAppData(brain).appData;
    data = setFieldValue(brain, data, '/model_configurations/batchSize', 20);
    data = setFieldValue(brain, data, '/model_configurations/modelType', 'quantum');
    expect(model(data)).toMatchObject({ model: 'QCNN', batchSize: 16, numQubits: 4, patchSize: 2 });
    data = setFieldValue(brain, data, '/model_configurations/modelType', 'classical');
    expect(model(data)).toMatchObject({ model: 'densenet121', batchSize: 16 });
  });

  it('defaults of the specification', () => {
    const s = createDefaultAppData(stock, { rowCount: 500 });
    expect(model(s)).toEqual({ epochs: 10, learning_rate: 0.01, hidden_layers: 16, repeats: 1 });
    const p = setFieldValue(
      portfolio,
      createDefaultAppData(portfolio),
      '/model_configurations/model_type',
      'Quantum',
    );
    expect(p.preprocess).toMatchObject({ risk_factor: 0.5, budget: 2 });
    expect(model(p)).toMatchObject({ quantum_shots: 1024, optimizer_step: 100, circuit_repetition: 2 });
    // Brain tumor (not the specification's): 600 slices, about 46 patients of the sample, so that a patient
    // split holds out whole patients of every class; a smaller dataset ends the range at its size.
    expect(createDefaultAppData(brain).dataset).toMatchObject({
      training_range: { from_index: 1, to_index: 600 },
    });
    expect(createDefaultAppData(brain, { rowCount: 200 }).dataset).toMatchObject({
      training_range: { from_index: 1, to_index: 200 },
    });
    expect(createDefaultAppData(fraud).dataset).toMatchObject({ train_test_split: 0.3 });
  });

  it('does not mutate its input and shares unchanged parts', () => {
    const before = createExampleAppData(stock).appData;
    const copy = JSON.parse(JSON.stringify(before)) as AppData;
    const after = setFieldValue(stock, before, '/model_configurations/epochs', 60);
    expect(before).toEqual(copy);
    expect(after.preprocess).toBe(before.preprocess);
    expect(model(after).epochs).toBe(60);
  });
});

describe('pruning', () => {
  it('drops values of inactive and undeclared fields, keeps outputs', () => {
    let data = createExampleAppData(stock).appData;
    data = setFieldValue(stock, data, '/model_configurations/model_type', 'Classical');
    data = { ...data, preprocess: { ...data.preprocess, junk: 1 }, extra: true };
    const pruned = pruneAppData(stock, data);
    expect(model(pruned)).toEqual({
      model_type: 'Classical',
      training_model_method: 'LSTM',
      epochs: 50,
      learning_rate: 0.01,
      hidden_layers: 16,
    });
    expect(pruned.preprocess).not.toHaveProperty('junk');
    expect(pruned).not.toHaveProperty('extra');
    expect(pruned.outputs).toEqual(data.outputs);
  });
  it('brain tumor has no preprocess', () => {
    expect(pruneAppData(brain, { preprocess: { a: 1 }, model_configurations: {} })).toEqual({
      model_configurations: {},
    });
  });
});
