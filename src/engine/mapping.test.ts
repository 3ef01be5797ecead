// The job-body mapping: each body of workspace.md section 7, field for field, from each problem's
// example data (snapshot), plus the constants, renames and transforms the section names.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import {
  applyMapping,
  createExampleAppData,
  mapJobBody,
  mapJobRequest,
  setFieldValue,
  TRANSFORM_NAMES,
  validateJobBody,
  type AppData,
  type Problem,
} from './index';

const registry = loadRegistry();
const ctx = { applicationId: 1447, userId: 42 };

function exampleBody(problem: Problem, data?: AppData) {
  const ex = createExampleAppData(problem);
  return mapJobBody(problem, data ?? ex.appData, { ...ex.context, ...ctx });
}

// Keys of each body, in the order workspace.md section 7 lists them.
const SECTION_7: Record<string, { keys: string[]; quantumOnly?: string[] }> = {
  'stock-price-prediction': {
    keys: 'id, dataset, train_test_split, training_features, prediction_features, training_model_type, training_model_method, epochs, learning_rate, hidden_layers, qubits, from_index, to_index, use_quantum_simulator, quantum_backend, quantum_device_backend, quantum_shots, quantum_noise_model, actual_quantum_device_token'.split(
      ', ',
    ),
  },
  'portfolio-optimization': {
    keys: 'id, file, risk_factor, budget, stocks_names, use_quantum_simulator, quantum_device_backend, quantum_shots, actual_quantum_device_token, model, device, optimizer_alg, optimizer_alg_maxiter, ansatz, circuit_repetition, columns'.split(
      ', ',
    ),
  },
  'fraud-detection': {
    keys: 'id, dataset_url, test_ratio, model, use_quantum_simulator, quantum_device_backend, quantum_shots, actual_quantum_device_token, pqc, device, optimizer_alg, optimizer_alg_maxiter, circuit_repetition, pretrained_path, columns'.split(
      ', ',
    ),
  },
  'demand-forecasting': {
    keys: 'id, dataset, train_test_split, training_features, prediction_feature, training_model_type, epochs, learning_rate, hidden_layers, qubits, from_index, to_index'.split(
      ', ',
    ),
  },
  'brain-tumor': {
    keys: 'id, batch_size, epochs, learning_rate, optimizer, training_model_type, model_name, loss_function'.split(
      ', ',
    ),
    quantumOnly:
      'n_qubits, circuit_depth, patch_size, n_layers, units_per_layer, activations, dropout_rates'.split(
        ', ',
      ),
  },
};

describe('job bodies of workspace.md section 7', () => {
  it.each(Object.entries(SECTION_7))('%s: exactly the listed keys, in order', (id, spec) => {
    const body = exampleBody(registry.getProblem(id));
    expect(Object.keys(body)).toEqual(spec.keys);
  });

  it('stock: field for field from the example defaults', () => {
    expect(exampleBody(registry.getProblem('stock-price-prediction'))).toEqual({
      id: 1447,
      dataset: 'samples/apple_google_stock.csv',
      train_test_split: 0.6,
      training_features: ['Close', 'High', 'Low', 'Open'],
      prediction_features: ['Close'],
      training_model_type: 'Quantum',
      training_model_method: 'Quantum',
      epochs: 50,
      learning_rate: 0.01,
      hidden_layers: 16,
      qubits: 5,
      from_index: 1,
      to_index: 100,
      use_quantum_simulator: true,
      quantum_backend: 'none',
      quantum_device_backend: 'aer_simulator_statevector',
      quantum_shots: 0,
      quantum_noise_model: 'None',
      actual_quantum_device_token: null,
    });
  });

  it('portfolio: field for field (ansatz null, columns empty)', () => {
    expect(exampleBody(registry.getProblem('portfolio-optimization'))).toEqual({
      id: 1447,
      file: 'samples/five_companies_stock.csv',
      risk_factor: 0.5,
      budget: 2,
      stocks_names: ['AAPL', 'GOOG', 'META', 'AMZN', 'NVDA'],
      use_quantum_simulator: true,
      quantum_device_backend: 'aer_simulator_statevector',
      quantum_shots: 1024,
      actual_quantum_device_token: null,
      model: 'VQE',
      device: 'CPU',
      optimizer_alg: 'COBYLA',
      optimizer_alg_maxiter: 100,
      ansatz: null,
      circuit_repetition: 2,
      columns: [],
    });
  });

  it('fraud: field for field (test_ratio from the dataset split, pretrained_path null, columns empty)', () => {
    expect(exampleBody(registry.getProblem('fraud-detection'))).toEqual({
      id: 1447,
      dataset_url: 'samples/credit_card_fraud_synthetic.csv',
      test_ratio: 0.3,
      model: 'Variational Quantum Classifier',
      use_quantum_simulator: true,
      quantum_device_backend: 'aer_simulator_statevector',
      quantum_shots: 1024,
      actual_quantum_device_token: null,
      pqc: 'RealAmplitudes',
      device: 'CPU',
      optimizer_alg: 'COBYLA',
      optimizer_alg_maxiter: 100,
      circuit_repetition: 2,
      pretrained_path: null,
      columns: [],
    });
  });

  it('demand: field for field (prediction_feature singular, qubits null for Classical)', () => {
    expect(exampleBody(registry.getProblem('demand-forecasting'))).toEqual({
      id: 1447,
      dataset: 'samples/product_demand.csv',
      train_test_split: 0.7,
      training_features: ['Temperature', 'Fuel_Price', 'CPI', 'Unemployment'],
      prediction_feature: 'Weekly_Sales',
      training_model_type: 'Classical',
      epochs: 10,
      learning_rate: 0.01,
      hidden_layers: 16,
      qubits: null,
      from_index: 1,
      to_index: 143,
    });
  });

  it('brain tumor train: classical body, lower-case optimizer; quantum adds its keys', () => {
    const brain = registry.getProblem('brain-tumor');
    expect(exampleBody(brain)).toEqual({
      id: 1447,
      batch_size: 16,
      epochs: 20,
      learning_rate: 0.001,
      optimizer: 'adam',
      training_model_type: 'classical',
      model_name: 'densenet121',
      loss_function: 'sparse_categorical_crossentropy',
    });
    let quantum = setFieldValue(
      brain,
      createExampleAppData(brain).appData,
      '/model_configurations/modelType',
      'quantum',
    );
    quantum = setFieldValue(brain, quantum, '/model_configurations/optimizer', 'RMSprop');
    const body = mapJobBody(brain, quantum, ctx);
    expect(Object.keys(body)).toEqual([
      ...SECTION_7['brain-tumor']!.keys,
      ...SECTION_7['brain-tumor']!.quantumOnly!,
    ]);
    expect(body).toMatchObject({
      optimizer: 'rmsprop',
      training_model_type: 'quantum',
      model_name: 'QCNN',
      n_qubits: 4,
      circuit_depth: 3,
      patch_size: 2,
      n_layers: 1,
      units_per_layer: 128,
      activations: 'relu',
      dropout_rates: 0.2,
    });
    expect(validateJobBody(brain, body)).toEqual({ valid: true, errors: [] });
  });

  it("brain tumor train request: path by model type, index query from the form's training range", () => {
    const brain = registry.getProblem('brain-tumor');
    const ex = createExampleAppData(brain);
    // The chosen range is sent (the specification's client always sent 1..10 / 1..100: issue #13).
    const classical = mapJobRequest(brain, ex.appData, ctx);
    expect(classical).toMatchObject({
      method: 'POST',
      path: '/brain-tumor-classification/execute-job/classical',
      query: { user_id: 42, start_idx: 1, end_idx: 100 },
    });
    let quantum = setFieldValue(brain, ex.appData, '/model_configurations/modelType', 'quantum');
    quantum = setFieldValue(brain, quantum, '/dataset/training_range', { from_index: 25, to_index: 48 });
    const request = mapJobRequest(brain, quantum, ctx);
    expect(request.path).toBe('/brain-tumor-classification/execute-job/quantum');
    expect(request.query).toEqual({ user_id: 42, start_idx: 25, end_idx: 48 });
  });

  it.each(['stock-price-prediction', 'portfolio-optimization', 'fraud-detection', 'demand-forecasting'])(
    '%s: POST /{problem}/execute-job/{userId}',
    (id) => {
      const problem = registry.getProblem(id);
      expect(mapJobRequest(problem, createExampleAppData(problem).appData, ctx)).toMatchObject({
        method: 'POST',
        path: `/${id}/execute-job/42`,
        query: {},
      });
    },
  );
});

describe('every problem', () => {
  it.each(registry.problems.map((p) => [p.id, p] as const))(
    '%s: the example maps to a body that passes the job-body schema (snapshot)',
    (_id, problem) => {
      const body = exampleBody(problem);
      expect(validateJobBody(problem, body)).toEqual({ valid: true, errors: [] });
      expect(body).toMatchSnapshot();
    },
  );
});

describe('payload rules and transforms', () => {
  it('strips carriage returns from feature and stock-name lists', () => {
    const stock = registry.getProblem('stock-price-prediction');
    let data = createExampleAppData(stock).appData;
    data = setFieldValue(stock, data, '/preprocess/training_features', ['Open', 'Close\r']);
    data = setFieldValue(stock, data, '/preprocess/prediction_features', ['Close\r']);
    const body = mapJobBody(stock, data, ctx);
    expect(body.training_features).toEqual(['Open', 'Close']);
    expect(body.prediction_features).toEqual(['Close']);

    const portfolio = registry.getProblem('portfolio-optimization');
    const p = setFieldValue(portfolio, createExampleAppData(portfolio).appData, '/preprocess/stocks_names', [
      'AAPL',
      'TSLA\r',
    ]);
    expect(mapJobBody(portfolio, p, ctx).stocks_names).toEqual(['AAPL', 'TSLA']);

    const demand = registry.getProblem('demand-forecasting');
    const d = setFieldValue(
      demand,
      createExampleAppData(demand).appData,
      '/preprocess/prediction_feature',
      'demand\r',
    );
    expect(mapJobBody(demand, d, ctx).prediction_feature).toBe('demand');
  });

  it('real device and custom token reach the body; inactive values never do', () => {
    const stock = registry.getProblem('stock-price-prediction');
    let data = createExampleAppData(stock).appData;
    data = setFieldValue(stock, data, '/model_configurations/quantum_device/use_quantum_sim', false);
    data = setFieldValue(stock, data, '/model_configurations/quantum_device/act_quantum_device', 'ibm_kyiv');
    data = setFieldValue(stock, data, '/model_configurations/quantum_device/check_custom_ibm_token', true);
    data = setFieldValue(stock, data, '/model_configurations/quantum_device/custom_ibm_token', 'tok_123');
    expect(mapJobBody(stock, data, ctx)).toMatchObject({
      use_quantum_simulator: false,
      quantum_device_backend: 'ibm_kyiv',
      quantum_noise_model: null,
      actual_quantum_device_token: 'tok_123',
    });
    // Unticking keeps the typed token in the form, but it is no longer sent.
    data = setFieldValue(stock, data, '/model_configurations/quantum_device/check_custom_ibm_token', false);
    expect(mapJobBody(stock, data, ctx).actual_quantum_device_token).toBeNull();
    // Classical: quantum-only values are pruned before mapping.
    data = setFieldValue(stock, data, '/model_configurations/model_type', 'Classical');
    expect(mapJobBody(stock, data, ctx)).toMatchObject({
      training_model_method: 'LSTM',
      qubits: null,
      use_quantum_simulator: false,
      quantum_device_backend: null,
    });
  });

  it('applyMapping: first present source, default, omit, when, const copies', () => {
    const source = { a: { x: 1, y: 'Y' } };
    const constant: unknown[] = [];
    const out = applyMapping(
      [
        { to: '/first', from: ['/a/missing', '/a/y'] },
        { to: '/fallback', from: '/a/missing', default: null },
        { to: '/omitted', from: '/a/missing' },
        { to: '/when', const: 'yes', when: { pointer: '/a/x', equals: 1 } },
        { to: '/not', const: 'no', when: { pointer: '/a/x', equals: 2 } },
        { to: '/nested/key', from: '/a/x', transform: 'toString' },
        { to: '/list', const: constant as never },
      ],
      source,
    );
    expect(out).toEqual({ first: 'Y', fallback: null, when: 'yes', nested: { key: '1' }, list: [] });
    expect(out.list).not.toBe(constant);
  });

  it('the transform names in the meta-schema are exactly the engine transforms', async () => {
    const { loadSchemaSources } = await import('./node/load-schemas');
    const meta = loadSchemaSources()['meta/problem.schema.json'] as {
      $defs: { mappingEntry: { properties: { transform: { enum: string[] } } } };
    };
    expect([...meta.$defs.mappingEntry.properties.transform.enum].sort()).toEqual(
      [...TRANSFORM_NAMES].sort(),
    );
  });
});
