// Tab validity, pipeline validity and the pipeline graph.

import { describe, expect, it } from 'vitest';

import { loadRegistry } from './node/load-schemas';
import {
  createDefaultAppData,
  createExampleAppData,
  derivePipelineGraph,
  getPipelineStatus,
  getTabStatuses,
  setFieldValue,
} from './index';

const registry = loadRegistry();
const stock = registry.getProblem('stock-price-prediction');
const brain = registry.getProblem('brain-tumor');

describe('tab and pipeline validity', () => {
  it("blank app: both tabs invalid; 'Fill missing at 1' jumps to the dataset tab", () => {
    const status = getPipelineStatus(stock, createDefaultAppData(stock));
    expect(status.valid).toBe(false);
    expect(status.message).toBe('Please fill in the missing information to make the pipeline valid.');
    expect(status.fillMissing).toEqual({ label: 'Fill missing at 1', tab: 'dataset', tabIndex: 0, step: 1 });
    expect(status.blockedMessage).toBe(
      'Please fill the required fields in the Dataset and Configurations tabs.',
    );
    expect(status.tabs.map((t) => [t.id, t.label, t.valid])).toEqual([
      ['dataset', 'Dataset', false],
      ['model', 'Model Configurations', false],
    ]);
  });

  it("dataset complete, model incomplete: 'Fill missing at 2'", () => {
    const ex = createExampleAppData(stock);
    const data = setFieldValue(stock, ex.appData, '/model_configurations/model_type', undefined);
    expect(getPipelineStatus(stock, data).fillMissing).toEqual({
      label: 'Fill missing at 2',
      tab: 'model',
      tabIndex: 1,
      step: 2,
    });
    expect(getTabStatuses(stock, data).map((t) => t.valid)).toEqual([true, false]);
  });

  it('complete app: valid, no message', () => {
    const ex = createExampleAppData(stock);
    expect(getPipelineStatus(stock, ex.appData, ex.context)).toMatchObject({ valid: true });
    expect(getPipelineStatus(stock, ex.appData, ex.context).message).toBeUndefined();
  });

  it('brain tumor: no preprocess; missing training file flags the dataset tab', () => {
    const ex = createExampleAppData(brain);
    expect(getPipelineStatus(brain, ex.appData, ex.context).valid).toBe(true);
    const noFile = setFieldValue(brain, ex.appData, '/dataset/file', undefined);
    expect(getPipelineStatus(brain, noFile).fillMissing?.label).toBe('Fill missing at 1');
  });
});

describe('pipeline graph', () => {
  it('stock: dataset -> preprocess sections -> model sections -> run -> outputs', () => {
    const ex = createExampleAppData(stock);
    const graph = derivePipelineGraph(stock, ex.appData, ex.context);
    expect(graph.nodes.map((n) => n.id)).toEqual([
      'dataset',
      'preprocess:data-features',
      'preprocess:data-preprocess-advanced',
      'model_configurations:model-type',
      'model_configurations:model-parameters',
      'model_configurations:quantum-device',
      'run',
      'outputs',
    ]);
    expect(graph.edges).toHaveLength(graph.nodes.length - 1);
    expect(graph.edges[0]).toEqual({
      id: 'dataset->preprocess:data-features',
      source: 'dataset',
      target: 'preprocess:data-features',
    });
    expect(graph.nodes[0]!.items[0]).toEqual({ label: 'Source', value: 'Apple and Google stock price' });
    expect(graph.nodes[1]!.items).toContainEqual({
      label: 'Training Features',
      value: 'Close, High, Low, Open',
    });
    expect(graph.nodes[1]!.items).toContainEqual({ label: 'Train Test Split', value: '60%' });
    expect(graph.nodes[5]!.items[0]!.value).toContain('Simulator: aer_simulator_statevector');
    // The words a user reads: no request path, no internal output field names ('img', 'input').
    expect(graph.nodes.find((n) => n.id === 'run')!.items).toEqual([
      { label: 'Starts with', value: 'Run the Application' },
    ]);
    expect(graph.nodes.find((n) => n.id === 'outputs')!.items).toEqual([
      { label: 'Line Graph', value: 'Line chart' },
      { label: 'Mean Squared Error', value: 'Number' },
      { label: 'Prediction', value: 'Table' },
      { label: 'Historical Prices Graph', value: 'Line chart' },
    ]);
    expect(graph.nodes.every((n) => n.valid)).toBe(true);
    expect(graph.nodes.map((n) => n.position.x)).toEqual([0, 260, 520, 780, 1040, 1300, 1560, 1820]);
  });

  it('classical models drop the quantum node; invalid sections are flagged', () => {
    const ex = createExampleAppData(stock);
    let data = setFieldValue(stock, ex.appData, '/model_configurations/model_type', 'Classical');
    data = setFieldValue(stock, data, '/model_configurations/epochs', 1);
    const graph = derivePipelineGraph(stock, data, ex.context);
    expect(graph.nodes.map((n) => n.id)).not.toContain('model_configurations:quantum-device');
    expect(graph.nodes.find((n) => n.id === 'model_configurations:model-parameters')!.valid).toBe(false);
  });

  it('every problem derives a graph from its file, in words a user reads', () => {
    for (const problem of registry.problems) {
      const ex = createExampleAppData(problem);
      const graph = derivePipelineGraph(problem, ex.appData, ex.context);
      const values = graph.nodes.flatMap((n) => n.items.map((item) => item.value));
      expect(values.filter((v) => ['img', 'input'].includes(v) || /^(POST|GET) \//.test(v))).toEqual([]);
      expect(graph.nodes[0]!.kind).toBe('dataset');
      expect(graph.nodes.at(-1)!.kind).toBe('outputs');
      expect(graph.nodes.filter((n) => n.kind === 'section').length).toBeGreaterThan(0);
    }
  });
});
