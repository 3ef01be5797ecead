// Every validation message of the specification (workspace.md section 5, plus the token rules of
// platform-shell.md section 5), produced through the engine from the schema files.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import {
  createExampleAppData,
  setFieldValue,
  validateAppData,
  validateJobBody,
  mapJobBody,
  type AppData,
  type EngineContext,
  type Problem,
} from './index';
import { installPrecompiledValidators, precompiledValidators } from './precompiled';
import { COMPILED_PROBLEMS_LIMIT, compiledProblemsCache } from './validate';

const registry = loadRegistry();
const stock = registry.getProblem('stock-price-prediction');
const portfolio = registry.getProblem('portfolio-optimization');
const fraud = registry.getProblem('fraud-detection');
const demand = registry.getProblem('demand-forecasting');
const brain = registry.getProblem('brain-tumor');

function example(problem: Problem) {
  return createExampleAppData(problem);
}

/** Sets `path` on the problem's example and returns the messages at `expectPath`. */
function messagesAfter(
  problem: Problem,
  path: string,
  value: unknown,
  context?: EngineContext,
  expectPath: string = path,
): string[] {
  const ex = example(problem);
  const ctx = context ?? ex.context;
  const data = setFieldValue(problem, ex.appData, path, value, ctx);
  return validateAppData(problem, data, ctx)
    .errors.filter((e) => e.path === expectPath)
    .map((e) => e.message);
}

function withValues(problem: Problem, values: Record<string, unknown>, base?: AppData): AppData {
  let data = base ?? example(problem).appData;
  for (const [path, value] of Object.entries(values)) data = setFieldValue(problem, data, path, value);
  return data;
}

describe('examples', () => {
  it.each(registry.problems.map((p) => [p.id, p] as const))(
    '%s: the example app_data is valid',
    (_id, problem) => {
      const ex = example(problem);
      expect(validateAppData(problem, ex.appData, ex.context)).toEqual({ valid: true, errors: [] });
    },
  );
});

describe('splitter (financial), with the dataset row count N', () => {
  const ctx = { rowCount: 250 };
  const splitter = (from: unknown, to: unknown, context: EngineContext = ctx) => {
    const data = setFieldValue(stock, example(stock).appData, '/preprocess/splitter', {
      from_index: from,
      to_index: to,
    });
    return validateAppData(stock, data, context).errors.filter((e) =>
      e.path.startsWith('/preprocess/splitter'),
    );
  };

  it("'From Index must be at least 1'", () => {
    expect(splitter(0, 50)).toContainEqual(
      expect.objectContaining({
        path: '/preprocess/splitter/from_index',
        field: 'from_index',
        message: 'From Index must be at least 1',
      }),
    );
  });
  it("'From Index cannot exceed N' and 'To Index cannot exceed N'", () => {
    const errors = splitter(251, 300);
    expect(errors).toContainEqual(
      expect.objectContaining({
        path: '/preprocess/splitter/from_index',
        message: 'From Index cannot exceed 250',
      }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({
        path: '/preprocess/splitter/to_index',
        message: 'To Index cannot exceed 250',
      }),
    );
  });
  it("'To Index must be greater than or equal to From Index' (reported first)", () => {
    const errors = splitter(100, 50).map((e) => e.message);
    expect(errors[0]).toBe('To Index must be greater than or equal to From Index');
  });
  it("'To Index must be at least 10 greater than From Index'", () => {
    expect(splitter(100, 105).map((e) => e.message)).toEqual([
      'To Index must be at least 10 greater than From Index',
    ]);
    expect(splitter(100, 110)).toEqual([]);
  });
  it('required indices and unknown row count', () => {
    expect(splitter(undefined, undefined).map((e) => e.message)).toEqual([
      'From Index is required',
      'To Index is required',
    ]);
    // Without a row count only the row-count limits are skipped.
    expect(splitter(5000, 6000, {})).toEqual([]);
  });
  it('defaults: from 1, to the smaller of the row count and 100', async () => {
    const { createDefaultAppData } = await import('./defaults');
    expect(createDefaultAppData(stock, { rowCount: 40 }).preprocess?.splitter).toEqual({
      from_index: 1,
      to_index: 40,
    });
    expect(createDefaultAppData(stock, { rowCount: 4000 }).preprocess?.splitter).toEqual({
      from_index: 1,
      to_index: 100,
    });
  });
});

describe('training range (brain tumor)', () => {
  const ctx = { rowCount: 3064 };
  const range = (from: unknown, to: unknown) => {
    const data = setFieldValue(brain, example(brain).appData, '/dataset/training_range', {
      ...(from === undefined ? {} : { from_index: from }),
      ...(to === undefined ? {} : { to_index: to }),
    });
    return validateAppData(brain, data, ctx).errors;
  };
  const at = (errors: { path: string; message: string }[], field: string) =>
    errors.filter((e) => e.path === `/dataset/training_range/${field}`).map((e) => e.message);

  it("'From Index must be a number'", () =>
    expect(at(range('abc', 100), 'from_index')).toContain('From Index must be a number'));
  it("'must be an integer'", () => expect(at(range(1.5, 100), 'from_index')).toEqual(['must be an integer']));
  it("'must be at least 1'", () => expect(at(range(0, 100), 'from_index')).toEqual(['must be at least 1']));
  it("'From Index must be less than To Index' / 'To Index must be greater than From Index'", () => {
    const errors = range(50, 50);
    expect(at(errors, 'from_index')).toEqual(['From Index must be less than To Index']);
    expect(at(errors, 'to_index')).toEqual(['To Index must be greater than From Index']);
  });
  it("'From Index is required' / 'To Index is required'", () => {
    expect(at(range(undefined, 100), 'from_index')).toEqual(['From Index is required']);
    expect(at(range(1, undefined), 'to_index')).toEqual(['To Index is required']);
  });
  it("'To Index must be less than or equal to 3064' and 'To Index must not exceed 3064'", () => {
    expect(at(range(1, 3065), 'to_index').sort()).toEqual([
      'To Index must be less than or equal to 3064',
      'To Index must not exceed 3064',
    ]);
    expect(at(range(1, 3064), 'to_index')).toEqual([]);
  });
});

describe('preprocess fields', () => {
  it("select, column checklist and radio: 'This field is required'", () => {
    expect(messagesAfter(stock, '/preprocess/train_test_split', undefined)).toEqual([
      'This field is required',
    ]);
    expect(messagesAfter(stock, '/preprocess/missing_values', undefined)).toEqual(['This field is required']);
    expect(messagesAfter(stock, '/preprocess/training_features', undefined)).toEqual([
      'This field is required',
    ]);
    expect(messagesAfter(demand, '/preprocess/prediction_feature', undefined)).toEqual([
      'This field is required',
    ]);
    expect(messagesAfter(fraud, '/preprocess/column', '')).toEqual(['This field is required']);
    expect(messagesAfter(fraud, '/preprocess/normalization', undefined)).toEqual(['This field is required']);
  });
  it("empty feature checklists: 'No features selected'", () => {
    expect(messagesAfter(stock, '/preprocess/training_features', [])).toEqual(['No features selected']);
    expect(messagesAfter(stock, '/preprocess/prediction_features', [])).toEqual(['No features selected']);
    expect(messagesAfter(demand, '/preprocess/training_features', [])).toEqual(['No features selected']);
    expect(messagesAfter(portfolio, '/preprocess/stocks_names', [])).toEqual(['No features selected']);
  });
});

describe('dataset', () => {
  it("a linked URL must be http(s): 'Invalid URL. Please link to your CSV file URL.'", () => {
    const data = withValues(stock, { '/dataset': { kind: 'url', url: 'ftp://example.com/a.csv' } });
    expect(validateAppData(stock, data).errors).toEqual([
      expect.objectContaining({
        path: '/dataset/url',
        message: 'Invalid URL. Please link to your CSV file URL.',
      }),
    ]);
    const ok = withValues(stock, { '/dataset': { kind: 'url', url: 'https://example.com/a.csv' } });
    expect(validateAppData(stock, ok).valid).toBe(true);
  });
  it("no dataset: 'Please upload a file first'", () => {
    expect(messagesAfter(stock, '/dataset', undefined, {}, '/dataset/url')).toEqual([
      'Please upload a file first',
    ]);
  });
  it("brain tumor training file: '.mat' messages", () => {
    expect(messagesAfter(brain, '/dataset/file', 'scans.csv')).toEqual([
      'Invalid file format. Please select a .mat file.',
    ]);
    // A .zip of .mat files, and an upload's download URL (/api/download/{stored name}/{user}/{email}).
    expect(messagesAfter(brain, '/dataset/file', 'scans.zip')).toEqual([]);
    expect(messagesAfter(brain, '/dataset/file', '/api/download/0a1b.mat/7/a%40b.c')).toEqual([]);
    expect(messagesAfter(brain, '/dataset/file', undefined)).toEqual([
      'Please upload a .mat file before proceeding!',
    ]);
  });
});

describe('pipeline field rules', () => {
  it('epochs (stock, demand) 5 to 100', () => {
    for (const problem of [stock, demand]) {
      expect(messagesAfter(problem, '/model_configurations/epochs', 4)).toEqual([
        'Epochs must be greater than or equal to 5',
      ]);
      expect(messagesAfter(problem, '/model_configurations/epochs', 101)).toEqual([
        'Epochs must be less than or equal to 100',
      ]);
      expect(messagesAfter(problem, '/model_configurations/epochs', 5)).toEqual([]);
      expect(messagesAfter(problem, '/model_configurations/epochs', 100)).toEqual([]);
      expect(messagesAfter(problem, '/model_configurations/epochs', 7.5)).toEqual([
        'Epochs must be an integer',
      ]);
    }
  });
  it("model type: 'Model type is required', 'Model type must be either Classical or Quantum'", () => {
    for (const problem of [stock, portfolio, fraud, demand]) {
      expect(messagesAfter(problem, '/model_configurations/model_type', undefined)).toEqual([
        'Model type is required',
      ]);
      expect(messagesAfter(problem, '/model_configurations/model_type', 'Hybrid')).toEqual([
        'Model type must be either Classical or Quantum',
      ]);
    }
    expect(messagesAfter(brain, '/model_configurations/modelType', undefined)).toEqual([
      'Model type is required',
    ]);
    expect(messagesAfter(brain, '/model_configurations/modelType', 'hybrid')).toEqual([
      'Model type must be either Classical or Quantum',
    ]);
  });
  it('qubits: required when Quantum, positive integer, 4 to 10', () => {
    expect(messagesAfter(stock, '/model_configurations/qubits', undefined)).toEqual(['Qubits is required']);
    expect(messagesAfter(stock, '/model_configurations/qubits', 3)).toEqual(['Qubits must be at least 4']);
    expect(messagesAfter(stock, '/model_configurations/qubits', 11)).toEqual(['Qubits must be at most 10']);
    expect(messagesAfter(stock, '/model_configurations/qubits', 4.5)).toEqual([
      'Qubits must be a positive integer',
    ]);
    // Not required (and not validated) for Classical.
    const classical = withValues(demand, { '/model_configurations/qubits': 99 });
    expect(validateAppData(demand, classical).valid).toBe(true);
  });
  it("quantum device or simulator required when Quantum: 'Simulator is required'", () => {
    for (const problem of [stock, portfolio, fraud]) {
      expect(messagesAfter(problem, '/model_configurations/quantum_device', undefined)).toEqual([
        'Simulator is required',
      ]);
      expect(
        messagesAfter(
          problem,
          '/model_configurations/quantum_device/sim_quantum_device',
          undefined,
          undefined,
          '/model_configurations/quantum_device/sim_quantum_device',
        ),
      ).toEqual(['Simulator is required']);
    }
    const real = withValues(stock, { '/model_configurations/quantum_device/use_quantum_sim': false });
    expect(validateAppData(stock, real).errors).toEqual([
      expect.objectContaining({
        path: '/model_configurations/quantum_device/act_quantum_device',
        message: 'Quantum device is required',
      }),
    ]);
  });
  it('learning rate required and positive; hidden layers positive integer', () => {
    expect(messagesAfter(stock, '/model_configurations/learning_rate', undefined)).toEqual([
      'Learning rate is required',
    ]);
    expect(messagesAfter(stock, '/model_configurations/learning_rate', -0.1)).toContain(
      'Learning rate must be a positive number',
    );
    expect(messagesAfter(stock, '/model_configurations/hidden_layers', 0)).toContain(
      'Hidden layers must be a positive integer',
    );
    expect(messagesAfter(stock, '/model_configurations/hidden_layers', 1.5)).toContain(
      'Hidden layers must be a positive integer',
    );
  });
  it('risk factor required, 0 to 5, positive', () => {
    expect(messagesAfter(portfolio, '/preprocess/risk_factor', undefined)).toEqual([
      'Risk factor is required',
    ]);
    expect(messagesAfter(portfolio, '/preprocess/risk_factor', -1)).toEqual([
      'Risk factor must be a positive number',
    ]);
    expect(messagesAfter(portfolio, '/preprocess/risk_factor', 5.5)).toEqual([
      'Risk factor must be less than or equal to 5',
    ]);
    expect(messagesAfter(portfolio, '/preprocess/risk_factor', 0)).toEqual([]);
    expect(messagesAfter(portfolio, '/preprocess/risk_factor', 5)).toEqual([]);
  });
  it('budget required, integer, 1 to 10', () => {
    expect(messagesAfter(portfolio, '/preprocess/budget', undefined)).toEqual(['Budget is required']);
    expect(messagesAfter(portfolio, '/preprocess/budget', 2.5)).toEqual(['Budget must be an integer']);
    expect(messagesAfter(portfolio, '/preprocess/budget', 0)).toEqual(['Budget must be at least 1']);
    expect(messagesAfter(portfolio, '/preprocess/budget', 11)).toEqual(['Budget must be at most 10']);
  });
  it('brain tumor: learning rate 0.001 to 0.1, batch size, epochs 20 to 200 step 10, circuit depth 1 to 50', () => {
    expect(messagesAfter(brain, '/model_configurations/learningRate', 0.5)).toContain(
      'Learning rate must be between 0.001 and 0.1',
    );
    expect(messagesAfter(brain, '/model_configurations/learningRate', undefined)).toEqual([
      'Learning rate is required',
    ]);
    expect(messagesAfter(brain, '/model_configurations/batchSize', 64)).toEqual([
      'Batch size must be between 16 and 32 in steps of 4',
    ]);
    expect(messagesAfter(brain, '/model_configurations/batchSize', 24)).toEqual([]);
    expect(messagesAfter(brain, '/model_configurations/epochs', 10)).toEqual([
      'Epochs must be between 20 and 200',
    ]);
    expect(messagesAfter(brain, '/model_configurations/epochs', 25)).toEqual([
      'Epochs must be a multiple of 10',
    ]);
    expect(messagesAfter(brain, '/model_configurations/epochs', 210)).toEqual([
      'Epochs must be between 20 and 200',
    ]);
    expect(messagesAfter(brain, '/model_configurations/epochs', undefined)).toEqual(['Epochs is required']);
    const quantum = withValues(brain, { '/model_configurations/modelType': 'quantum' });
    expect(quantum.model_configurations).toMatchObject({ model: 'QCNN', numQubits: 4, circuitDepth: 3 });
    const q = (path: string, value: unknown) =>
      validateAppData(brain, setFieldValue(brain, quantum, path, value))
        .errors.filter((e) => e.path === path)
        .map((e) => e.message);
    expect(q('/model_configurations/batchSize', 20)).toEqual(['Batch size must be 8, 16, 32 or 64']);
    expect(q('/model_configurations/batchSize', 64)).toEqual([]);
    expect(q('/model_configurations/circuitDepth', 51)).toEqual(['Circuit depth must be between 1 and 50']);
    expect(q('/model_configurations/circuitDepth', 0)).toEqual(['Circuit depth must be between 1 and 50']);
    expect(q('/model_configurations/numQubits', 21)).toContain('Qubits must be between 4 and 20');
    expect(q('/model_configurations/numQubits', 20)).toEqual([]);
    expect(q('/model_configurations/circuitDepth', undefined)).toEqual(['This field is required']);
  });
  it('custom IBM token: enabled by the tick, letters/digits/-/_ only, at most 300 characters', () => {
    const ticked = withValues(stock, { '/model_configurations/quantum_device/check_custom_ibm_token': true });
    const path = '/model_configurations/quantum_device/custom_ibm_token';
    const at = (data: AppData) =>
      validateAppData(stock, data)
        .errors.filter((e) => e.path === path)
        .map((e) => e.message);
    expect(at(ticked)).toEqual(['Custom IBM token is required']);
    expect(at(setFieldValue(stock, ticked, path, 'abc def'))).toEqual([
      'Token can only contain letters, numbers, hyphens, and underscores',
    ]);
    expect(at(setFieldValue(stock, ticked, path, 'a'.repeat(301)))).toEqual([
      'Token must not exceed 300 characters',
    ]);
    expect(at(setFieldValue(stock, ticked, path, 'abc-DEF_123'))).toEqual([]);
  });
  it('ADAM on a real device is refused on optimizer_algorithm (a noise model is not a device)', () => {
    const path = '/model_configurations/optimizer_algorithm';
    const adamNote = registry.platform.messages.adamNeedsSimulation;
    expect(adamNote).toBe(
      'ADAM needs the exact gradient of a simulation: choose COBYLA or SPSA for a real device.',
    );
    const device = {
      '/model_configurations/quantum_device/use_quantum_sim': false,
      '/model_configurations/quantum_device/act_quantum_device': 'ibm_kyiv',
    };
    for (const problem of [fraud, portfolio, registry.getProblem('vehicle-routing')]) {
      const at = (values: Record<string, unknown>) =>
        validateAppData(problem, withValues(problem, values, example(problem).appData))
          .errors.filter((e) => e.path === path)
          .map((e) => e.message);
      expect(at({ [path]: 'ADAM', ...device })).toEqual([adamNote]);
      expect(at({ [path]: 'SPSA', ...device })).toEqual([]);
      expect(
        at({ [path]: 'ADAM', '/model_configurations/quantum_device/quantum_noise_model': 'fake_kyiv' }),
      ).toEqual([]);
    }
  });
});

describe('result shape', () => {
  it('gives path, field, label, message and keyword; ajv-errors required messages point at the field', () => {
    const data = withValues(stock, { '/model_configurations/epochs': undefined });
    expect(validateAppData(stock, data).errors).toEqual([
      {
        path: '/model_configurations/epochs',
        field: 'epochs',
        label: 'Epochs',
        message: 'Epochs is required',
        keyword: 'required',
      },
    ]);
  });
  it('values of inactive fields never block (a Classical model with a stale bad qubits value)', () => {
    const data = withValues(stock, {
      '/model_configurations/qubits': 99,
      '/model_configurations/model_type': 'Classical',
    });
    expect(validateAppData(stock, data).valid).toBe(true);
  });
  it('validateJobBody reports plain JSON Schema errors of a body', () => {
    const body = mapJobBody(stock, example(stock).appData, { applicationId: 1 });
    expect(validateJobBody(stock, body).valid).toBe(true);
    const { quantum_shots: _omit, ...rest } = body;
    expect(validateJobBody(stock, { ...rest, extra: 1 }).errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/quantum_shots', message: 'is required' }),
        expect.objectContaining({ path: '/extra', message: 'is not allowed' }),
      ]),
    );
  });
});

describe('error order', () => {
  it('follows the forms: dataset, preprocess, model configuration, each in declaration order', () => {
    const paths = validateAppData(stock, {}).errors.map((e) => e.path);
    expect(paths.slice(0, 3)).toEqual([
      '/dataset/url',
      '/preprocess/training_features',
      '/preprocess/prediction_features',
    ]);
    expect(paths.indexOf('/model_configurations/model_type')).toBeLessThan(
      paths.indexOf('/model_configurations/training_model_method'),
    );
  });
});

describe('file rules', () => {
  it("brain tumor prediction image: types, 5 MB, 'Please select an image before proceeding!'", async () => {
    const { checkFile, acceptAttribute } = await import('./files');
    const rule = brain.predict!.image!;
    expect(checkFile(rule, { name: 'scan.txt', size: 10 })).toEqual({
      ok: false,
      reason: 'type',
      message: 'File type not supported. Please upload a DICOM, NIfTI, PNG, or JPG file.',
    });
    expect(checkFile(rule, { name: 'scan.PNG', size: 6 * 1024 * 1024 }).message).toBe(
      'File too large. Please upload an image smaller than 5MB.',
    );
    expect(checkFile(rule, null).message).toBe('Please select an image before proceeding!');
    expect(checkFile(rule, { name: 'brain.nii.gz', size: 1024 })).toEqual({
      ok: true,
      message: 'File is valid and ready for prediction!',
    });
    expect(rule.messages).toMatchObject({
      notMri: "This doesn't look like an MRI scan. Please check your file and try again.",
      webcamNotMri: "This doesn't look like a valid MRI image.",
    });
    expect(acceptAttribute(rule)).toBe('.nii,.dicom,.nii.gz,.jpeg,.jpg,.png');
  });
  it("training dataset: 'Invalid file format. Please select a .mat file.' / 'Please upload a .mat file before proceeding!'", async () => {
    const { checkFile } = await import('./files');
    const rule = brain.dataset.upload!;
    expect(checkFile(rule, { name: 'data.csv' }).message).toBe(
      'Invalid file format. Please select a .mat file.',
    );
    expect(checkFile(rule, undefined).message).toBe('Please upload a .mat file before proceeding!');
    expect(checkFile(rule, { name: 'data.mat' }).ok).toBe(true);
    expect(checkFile(rule, { name: 'slices.zip' }).ok).toBe(true);
  });
  it("dataset and inference CSV: '.csv' only; 'Please upload a file first', 'Please upload a csv file', 'Please select a feature'", async () => {
    const { checkFile } = await import('./files');
    expect(checkFile(stock.dataset.upload!, undefined).message).toBe('Please upload a file first');
    expect(checkFile(stock.dataset.upload!, { name: 'prices.CSV' }).ok).toBe(true);
    expect(checkFile(stock.inference!.file, { name: 'x.xlsx' }).message).toBe('Please upload a csv file');
    expect(checkFile(stock.inference!.file, null).message).toBe('Please upload a csv file');
    expect(stock.inference!.messages).toEqual({ noFeature: 'Please select a feature' });
  });
});

describe('compiled validators stay bounded in a long process', () => {
  // This is about Node compiling at run time: precompiled.test.ts runs this file again with the browser's
  // precompiled validators installed, which know only the shipped schemas; set them aside here.
  let installed: ReturnType<typeof precompiledValidators>;
  beforeEach(() => {
    installed = precompiledValidators();
    installPrecompiledValidators(undefined);
  });
  afterEach(() => installPrecompiledValidators(installed));

  it('N distinct schemas keep the cache at its bound; the same schema, even as a new object, hits it', () => {
    // A schema changed N times (each a new Problem, as a reload makes): only the bound stays compiled.
    const variant = (i: number): Problem => ({
      ...stock,
      job: { ...stock.job, bodySchema: { ...stock.job.bodySchema, description: `variant ${i}` } },
    });
    const body = mapJobBody(stock, example(stock).appData, example(stock).context);
    const extra = 5;
    for (let i = 0; i < COMPILED_PROBLEMS_LIMIT + extra; i++) validateJobBody(variant(i), body);
    const full = compiledProblemsCache();
    expect(full.size).toBe(COMPILED_PROBLEMS_LIMIT);
    // ajv itself holds no more than the entries' schemas (two per problem) plus their references
    const ajvHeld = full.ajvSchemas;
    for (let i = 100; i < 100 + extra; i++) validateJobBody(variant(i), body);
    expect(compiledProblemsCache().size).toBe(COMPILED_PROBLEMS_LIMIT);
    expect(compiledProblemsCache().ajvSchemas).toBe(ajvHeld);
    // the last variant again, as a new object with the same schemas: a hit, nothing compiled
    const before = compiledProblemsCache();
    const last = variant(100 + extra - 1);
    expect(validateJobBody(last, body)).toEqual(validateJobBody(variant(100 + extra - 1), body));
    const after = compiledProblemsCache();
    expect(after.hits).toBe(before.hits + 2);
    expect(after.misses).toBe(before.misses);
    expect(after.size).toBe(COMPILED_PROBLEMS_LIMIT);
  });
});
