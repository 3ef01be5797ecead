// The registry, and "data, not code": a new problem file in a schemas directory is listed,
// derives its pipeline graph and maps its job body without any code change.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { DEFAULT_SCHEMAS_DIR, loadRegistry, loadSchemaSources } from './node/load-schemas';
import {
  checkSchemaSources,
  createExampleAppData,
  createRegistry,
  derivePipelineGraph,
  getPipelineStatus,
  getTabSections,
  mapJobBody,
  mapJobRequest,
  normalizeSources,
  SchemaError,
  UnknownProblemError,
  validateAppData,
  validateJobBody,
} from './index';

const registry = loadRegistry();

describe('registry', () => {
  it('lists the five listed problems in order, by category', () => {
    expect(registry.listProblems().map((p) => p.id)).toEqual([
      'stock-price-prediction',
      'portfolio-optimization',
      'fraud-detection',
      'demand-forecasting',
      'brain-tumor',
    ]);
    expect(registry.listCategories().map((c) => [c.id, c.problems.map((p) => p.id)])).toEqual([
      [
        'financial',
        ['stock-price-prediction', 'portfolio-optimization', 'fraud-detection', 'demand-forecasting'],
      ],
      ['bioinformatics', ['brain-tumor']],
    ]);
  });

  it('vehicle routing is defined but not listed', () => {
    expect(registry.getProblem('vehicle-routing')).toMatchObject({ listed: false, category: 'optimization' });
    expect(registry.listProblems({ includeUnlisted: true }).map((p) => p.id)).toContain('vehicle-routing');
    expect(registry.listCategories({ includeEmpty: true }).map((c) => c.id)).toEqual([
      'financial',
      'bioinformatics',
      'optimization',
    ]);
  });

  it('each problem has identity, five use cases, workspace, samples and resolved outputs', () => {
    for (const p of registry.problems) {
      expect(p.useCases).toHaveLength(5);
      expect(p.description.length).toBeGreaterThan(10);
      expect(p.outputDefinitions.map((o) => o.name)).toEqual(p.outputs);
    }
    expect(registry.getProblem('brain-tumor')).toMatchObject({
      workspace: 'developmentbio',
      formKeys: ['dataset', 'model_configurations'],
      predict: { models: ['densenet121', 'qmodel'] },
    });
    const samples = registry.problems.flatMap((p) => p.dataset.samples.map((s) => s.label));
    for (const label of [
      'Apple and Google stock price',
      'Five Companies Stock Price',
      'Product Demand',
      'Credit Card Fraud Detection (synthetic)',
      'Sample Dataset 1 (2020-2024) (synthetic)',
    ]) {
      expect(samples).toContain(label);
    }
  });

  it('inlines shared definitions with overrides', () => {
    const fraud = registry.getProblem('fraud-detection');
    const split = fraud.forms.dataset.schema.properties!.train_test_split!;
    expect(split).toMatchObject({ title: 'Test Share', enum: [0.3, 0.5, 0.6, 0.7, 0.8], default: 0.3 });
    expect(JSON.stringify(fraud.forms)).not.toContain('$ref');
  });

  it('example gallery: financial (stock, portfolio, fraud) and bioinformatics (brain tumor)', () => {
    expect(registry.listExamples().map((e) => [e.categoryLabel, e.problemId, e.appName])).toEqual([
      ['Financial Applications', 'stock-price-prediction', 'Stock Price Prediction Example'],
      ['Financial Applications', 'portfolio-optimization', 'Portfolio Optimization Example'],
      ['Financial Applications', 'fraud-detection', 'Fraud Detection Example'],
      ['Bioinformatics Applications', 'brain-tumor', 'Brain Tumor Example'],
    ]);
  });

  it('unknown problem ids throw', () => {
    expect(() => registry.getProblem('nope')).toThrow(UnknownProblemError);
    expect(registry.findProblem('nope')).toBeUndefined();
  });

  it('accepts import.meta.glob shaped modules', () => {
    const sources = loadSchemaSources();
    const globbed = Object.fromEntries(
      Object.entries(sources).map(([k, v]) => [`/schemas/${k}`, { default: v }]),
    );
    expect(Object.keys(normalizeSources(globbed)).sort()).toEqual(Object.keys(sources).sort());
    expect(createRegistry(globbed).listProblems()).toHaveLength(5);
  });

  it('a broken file is refused with file, JSON pointer and reason', () => {
    const sources = loadSchemaSources();
    const stock = structuredClone(sources['problems/stock-price-prediction.json']) as {
      forms: { model_configurations: { schema: { properties: Record<string, Record<string, unknown>> } } };
    };
    stock.forms.model_configurations.schema.properties.epochs = {
      $ref: 'defs.json#/$defs/epochs',
      minimun: 3,
    };
    const broken = { ...sources, 'problems/stock-price-prediction.json': stock };
    expect(() => createRegistry(broken)).toThrow(SchemaError);
    try {
      createRegistry(broken);
    } catch (err) {
      expect((err as SchemaError).issues).toContainEqual({
        file: 'problems/stock-price-prediction.json',
        pointer: '/forms/model_configurations/schema/properties/epochs/minimun',
        reason: 'unknown key "minimun" (not allowed here)',
      });
    }
  });
});

describe('data, not code', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  function tempSchemas(): string {
    dir = mkdtempSync(path.join(tmpdir(), 'qml-schemas-'));
    cpSync(DEFAULT_SCHEMAS_DIR, dir, { recursive: true });
    return dir;
  }

  it('a new problem file is listed, validated, rendered, drawn and mapped', () => {
    const schemas = tempSchemas();
    const problem = {
      $schema: '../meta/problem.schema.json',
      id: 'credit-risk-scoring',
      name: 'Credit Risk Scoring',
      category: 'financial',
      listed: true,
      order: 7,
      workspace: 'development',
      description: 'Score the default risk of loan applicants with classical or quantum classifiers.',
      useCases: ['Pre-screen loans', 'Set credit limits', 'Price risk', 'Explain decisions', 'Teach scoring'],
      dataset: { kinds: ['csv', 'url'], samples: [] },
      forms: {
        dataset: {
          schema: {
            type: 'object',
            properties: {
              kind: { $ref: 'defs.json#/$defs/datasetKind' },
              url: { $ref: 'defs.json#/$defs/datasetUrl' },
            },
            required: ['url'],
            allOf: [{ $ref: 'defs.json#/$defs/linkedUrlRule' }],
          },
          sections: [{ id: 'upload-data', heading: 'Upload Data', wizardStep: 0, fields: ['url'] }],
        },
        preprocess: {
          schema: {
            type: 'object',
            properties: {
              features: { $ref: 'defs.json#/$defs/featureSelector' },
              label: { $ref: 'defs.json#/$defs/columnRadio', title: 'Label Column' },
              splitter: { $ref: 'defs.json#/$defs/splitter' },
            },
            required: ['features', 'label', 'splitter'],
          },
          sections: [
            { id: 'data-features', heading: 'Data Features', fields: ['features', 'label', 'splitter'] },
          ],
        },
        model_configurations: {
          schema: {
            type: 'object',
            properties: {
              model_type: { $ref: 'defs.json#/$defs/modelType' },
              epochs: { $ref: 'defs.json#/$defs/epochs' },
            },
            required: ['model_type', 'epochs'],
            allOf: [
              {
                if: { properties: { model_type: { const: 'Quantum' } }, required: ['model_type'] },
                then: {
                  properties: {
                    qubits: { $ref: 'defs.json#/$defs/qubits' },
                    quantum_device: { $ref: 'defs.json#/$defs/quantumDevicePicker' },
                  },
                  required: ['qubits', 'quantum_device'],
                  errorMessage: { required: { quantum_device: { $message: 'simulatorRequired' } } },
                },
              },
            ],
            errorMessage: { required: { model_type: { $message: 'modelTypeRequired' } } },
          },
          sections: [
            { id: 'model', heading: 'Model', fields: ['model_type', 'epochs', 'qubits'] },
            { id: 'device', heading: 'Quantum Device', fields: ['quantum_device'] },
          ],
        },
      },
      job: {
        request: { method: 'POST', path: '/credit-risk-scoring/execute-job/{userId}' },
        body: [
          { to: '/id', context: 'applicationId' },
          { to: '/dataset_url', from: '/dataset/url' },
          { to: '/features', from: '/preprocess/features', transform: 'stripCarriageReturns' },
          { to: '/label', from: '/preprocess/label' },
          { to: '/rows', from: '/preprocess/splitter' },
          { to: '/model', from: '/model_configurations/model_type', transform: 'lowercase' },
          { to: '/epochs', from: '/model_configurations/epochs' },
          { to: '/qubits', from: '/model_configurations/qubits', default: null },
          {
            to: '/backend',
            from: [
              '/model_configurations/quantum_device/sim_quantum_device',
              '/model_configurations/quantum_device/act_quantum_device',
            ],
            default: null,
          },
          { to: '/shots', const: 1024 },
        ],
        bodySchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          title: 'CreditRiskScoringJobBody',
          type: 'object',
          properties: {
            id: { type: ['integer', 'string'] },
            dataset_url: { type: 'string' },
            features: { type: 'array', items: { type: 'string' } },
            label: { type: 'string' },
            rows: {
              type: 'object',
              properties: { from_index: { type: 'number' }, to_index: { type: 'number' } },
              required: ['from_index', 'to_index'],
            },
            model: { enum: ['classical', 'quantum'] },
            epochs: { type: 'integer' },
            qubits: { type: ['integer', 'null'] },
            backend: { type: ['string', 'null'] },
            shots: { const: 1024 },
          },
          required: [
            'id',
            'dataset_url',
            'features',
            'label',
            'rows',
            'model',
            'epochs',
            'qubits',
            'backend',
            'shots',
          ],
          additionalProperties: false,
        },
      },
      outputs: ['accuracy', 'heatmap'],
      example: {
        appName: 'Credit Risk Scoring Example',
        context: { rowCount: 500, columns: ['id', 'income', 'age', 'default', 'debt\r'] },
        appData: {
          dataset: { kind: 'url', url: 'https://example.org/credit.csv' },
          preprocess: {
            features: ['income', 'debt\r'],
            label: 'default',
            splitter: { from_index: 1, to_index: 200 },
          },
          model_configurations: {
            model_type: 'Quantum',
            epochs: 20,
            qubits: 6,
            quantum_device: {
              use_quantum_sim: true,
              sim_quantum_device: 'qasm_simulator',
              quantum_noise_model: 'None',
              check_custom_ibm_token: false,
            },
          },
        },
      },
    };
    writeFileSync(
      path.join(schemas, 'problems', 'credit-risk-scoring.json'),
      JSON.stringify(problem, null, 2),
    );

    const sources = loadSchemaSources(schemas);
    expect(checkSchemaSources(sources)).toEqual([]);
    const reg = loadRegistry(schemas);
    expect(reg.listProblems().map((p) => p.id)).toContain('credit-risk-scoring');
    expect(reg.listCategories()[0]!.problems.map((p) => p.id)).toContain('credit-risk-scoring');

    const p = reg.getProblem('credit-risk-scoring');
    const ex = createExampleAppData(p);
    expect(validateAppData(p, ex.appData, ex.context).valid).toBe(true);
    // {"$message": "modelTypeRequired"} reads platform.json's text
    expect(
      validateAppData(p, { ...ex.appData, model_configurations: {} }, ex.context).errors.find(
        (e) => e.path === '/model_configurations/model_type',
      )?.message,
    ).toBe('Model type is required');
    expect(
      getTabSections(p, 'dataset', ex.appData, ex.context)[1]!.fields[0]!.options?.map((o) => o.value),
    ).toEqual(['income', 'age', 'default', 'debt\r']);
    expect(derivePipelineGraph(p, ex.appData, ex.context).nodes.map((n) => n.id)).toEqual([
      'dataset',
      'preprocess:data-features',
      'model_configurations:model',
      'model_configurations:device',
      'run',
      'outputs',
    ]);
    const body = mapJobBody(p, ex.appData, { applicationId: 9 });
    expect(body).toEqual({
      id: 9,
      dataset_url: 'https://example.org/credit.csv',
      features: ['income', 'debt'],
      label: 'default',
      rows: { from_index: 1, to_index: 200 },
      model: 'quantum',
      epochs: 20,
      qubits: 6,
      backend: 'qasm_simulator',
      shots: 1024,
    });
    expect(validateJobBody(p, body).valid).toBe(true);
    expect(mapJobRequest(p, ex.appData, { userId: 3 }).path).toBe('/credit-risk-scoring/execute-job/3');
    expect(getPipelineStatus(p, { dataset: {} }).fillMissing?.label).toBe('Fill missing at 1');
  });

  it('flipping vehicle-routing to listed: true lists it the same way', () => {
    const schemas = tempSchemas();
    const file = path.join(schemas, 'problems', 'vehicle-routing.json');
    const vrp = JSON.parse(readFileSync(file, 'utf8')) as { listed: boolean };
    vrp.listed = true;
    writeFileSync(file, JSON.stringify(vrp, null, 2));
    const reg = loadRegistry(schemas);
    expect(reg.listProblems().map((p) => p.id)).toContain('vehicle-routing');
    expect(reg.listCategories().map((c) => [c.id, c.problems.map((p) => p.id)])).toContainEqual([
      'optimization',
      ['vehicle-routing'],
    ]);
    const p = reg.getProblem('vehicle-routing');
    const ex = createExampleAppData(p);
    expect(derivePipelineGraph(p, ex.appData, ex.context).nodes[1]!.id).toBe('preprocess:data-features');
    expect(mapJobBody(p, ex.appData, { applicationId: 5 })).toMatchObject({
      id: 5,
      dataset_url: 'samples/delivery_locations.csv',
      coordinate_columns: ['latitude', 'longitude'],
      num_vehicles: 2,
      model: 'QAOA',
    });
  });
});
