import { describe, expect, it } from 'vitest';
import type { JobEventRecord, JobRecord } from '../jobs/jobs-repository';
import { logsOf, modelTypeOf, outputDetail, resultTypeOf, timelineOf } from './output-detail';
import { firstDifference } from './outputs-service';

// OutputDetail derived from a jobs row and its events, without a database: what the page shows while
// an output runs (the lines so far) and once it ended (the handler's result), and the failure reason.

const AT = '2026-11-23T18:00:00.000Z';
let seq = 0;
const event = (type: string, payload: Record<string, unknown>): JobEventRecord => ({
  seq: seq++,
  type,
  payload,
  created_at: AT,
});

function job(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: 7,
    kind: 'demand-forecasting',
    owner_id: 1,
    status: 'running',
    params: { training_model_type: 'Classical', epochs: 3 },
    result: null,
    error: null,
    created_at: AT,
    started_at: AT,
    finished_at: null,
    execution_time: null,
    application_id: 3,
    queue_priority: 0,
    app_data: { model_configurations: { epochs: 3 } },
    extension: {
      dataset: {
        path: '/d.csv',
        sha256: 'ab',
        row_count: 60,
        columns: ['a'],
        label: 'Demand',
        synthetic: true,
      },
    },
    name: 'Demand #7',
    ...overrides,
  };
}

const SHA256 = 'ab'.repeat(32);
const RUN_RECORD = {
  config: {},
  dataset_sha256: SHA256,
  seed: 42,
  versions: { torch: '2.13.0' },
  machine: {},
  recorded_at: AT,
};

const chart = (title: string, data: number[]) => ({
  type: 'line',
  title,
  label: 'epoch',
  series: [{ name: 'loss', data }],
  categories: [],
});

describe('outputDetail', () => {
  it("while running: the latest progress, each metric's last value, the loss history by step, charts by title", () => {
    const events = [
      event('status', { status: 'queued' }),
      event('status', { status: 'running' }),
      event('progress', { percent: 10, stage: 'Epoch 1/3' }),
      event('metric', { name: 'train_loss', value: 0.9, step: 1 }),
      event('metric', { name: 'test_loss', value: 1.1, step: 1 }),
      event('chart', { chart: chart('Loss', [0.9]) }),
      event('progress', { percent: 40, stage: 'Epoch 2/3' }),
      event('metric', { name: 'train_loss', value: 0.5, step: 2 }),
      event('metric', { name: 'test_loss', value: 0.7, step: 2 }),
      event('chart', { chart: chart('Loss', [0.9, 0.5]) }),
      event('log', { level: 'info', message: 'Training the LSTM' }),
    ];
    const detail = outputDetail(job(), events);
    expect(detail.progress).toEqual({ percent: 40, stage: 'Epoch 2/3' });
    expect(detail.metrics).toEqual({ train_loss: 0.5, test_loss: 0.7 });
    expect(detail.output_data.training_history).toEqual({ train_loss: [0.9, 0.5], test_loss: [1.1, 0.7] });
    expect(detail.charts).toEqual([chart('Loss', [0.9, 0.5])]);
    expect(detail.dataset).toEqual({
      label: 'Demand',
      synthetic: true,
      sha256: 'ab',
      rows: 60,
      rows_used: null,
    });
    expect(detail.trained_model_type).toBe('Classical');
    expect(detail.trained_model_path).toBeNull();
    expect(detail.output_logs.map((l) => l.message)).toEqual([
      'Status: queued',
      'Status: running',
      'Training the LSTM',
    ]);
  });

  it("once Completed: the result's metrics, baseline, charts, losses, model and its path under DATA_DIR", () => {
    const result = {
      problem: 'demand-forecasting',
      model: 'LSTM',
      model_type: 'Classical',
      metrics: { rmse: 2, mae: 1, direction_accuracy: null },
      baseline: { name: 'Seasonal naive', metrics: { rmse: 3 } },
      charts: [chart('Actual vs predicted', [1, 2])],
      losses: { train: [0.9, 0.5, 0.3], test: [1.1, 0.7, 0.6] },
      trained_model_path: 'model.pt',
      dataset: { label: 'Demand', synthetic: true, sha256: SHA256, rows_used: 59 },
      run_record: RUN_RECORD,
    };
    const detail = outputDetail(job({ status: 'Completed', result, finished_at: AT, execution_time: 4.5 }), [
      event('status', { status: 'Completed' }),
    ]);
    expect(detail).toMatchObject({
      status: 'Completed',
      progress: { percent: 100, stage: 'Completed' },
      metrics: { rmse: 2, mae: 1 },
      baseline: { name: 'Seasonal naive', metrics: { rmse: 3 } },
      charts: result.charts,
      trained_model_type: 'LSTM',
      trained_model_path: 'outputs/7/model.pt',
      execution_time: 4.5,
      dataset: { rows: 60, rows_used: 59 },
      run_record: RUN_RECORD,
      output_data: { result_type: 'Training', training_history: { train_loss: [0.9, 0.5, 0.3] } },
    });
    expect(detail.metrics).not.toHaveProperty('direction_accuracy'); // undefined for this model
    expect(detail.quantum_backend).toBeNull(); // a classical result states no quantum run
  });

  it('reads a result that breaks the result contract as no result (the lines so far, no model path)', () => {
    const broken = {
      problem: 'demand-forecasting',
      model: 'LSTM',
      model_type: 'Classical',
      metrics: { rmse: 'two' },
      trained_model_path: 'model.pt',
    };
    const events = [event('metric', { name: 'rmse', value: 2.5, step: null })];
    const detail = outputDetail(job({ status: 'Completed', result: broken }), events);
    expect(detail.metrics).toEqual({ rmse: 2.5 });
    expect(detail.trained_model_path).toBeNull();
    expect(detail.trained_model_type).toBe('Classical'); // from the body, as before a result
  });

  it("once Completed, says where a quantum run's circuits ran from its result, not from the form", () => {
    const result = {
      problem: 'portfolio-optimization',
      model: 'VQE',
      model_type: 'Quantum',
      quantum_run: {
        simulation: 'noise model fake_kyiv (...) per evaluation',
        noise_model: 'fake_kyiv',
        device: null,
        backend_run: { noise_model: 'fake_kyiv', device: 'ibm_kyiv', shots: 1024, circuits_run: 41 },
        noisy_training: null,
        measured_after_training: 'the final circuit measured',
      },
    };
    const completed = outputDetail(job({ kind: 'portfolio-optimization', status: 'Completed', result }), []);
    expect(completed.quantum_backend).toBe(
      'ran under the fake_kyiv noise model on Aer with 1,024 shots (41 circuits)',
    );
    const failed = outputDetail(job({ kind: 'portfolio-optimization', status: 'Failed', result }), []);
    expect(failed.quantum_backend).toBeNull();
  });

  it("a failure's reason is an error line of the logs and the timeline's last entry", () => {
    const reason = 'The job exceeded its time limit of 12 s and was stopped';
    const events = [
      event('status', { status: 'queued' }),
      event('status', { status: 'running' }),
      event('error', { message: '/params/prediction_feature: no column "Sales"', kind: 'validation' }),
      event('status', { status: 'Failed', reason }),
    ];
    expect(logsOf(events).slice(-2)).toEqual([
      { level: 'error', message: '/params/prediction_feature: no column "Sales"', at: AT },
      { level: 'error', message: `Status: Failed: ${reason}`, at: AT },
    ]);
    expect(timelineOf(events)).toEqual([
      { status: 'queued', at: AT, reason: null, phase: null },
      { status: 'running', at: AT, reason: null, phase: null },
      { status: 'Failed', at: AT, reason, phase: null },
    ]);
  });

  it("separates a quantum run's preparing, executing and post-processing phases in the timeline", () => {
    const events = [
      event('status', { status: 'queued' }),
      event('status', { status: 'running' }),
      event('progress', { percent: 1, stage: 'loading the dataset' }),
      event('progress', { percent: 17, stage: 'transpiling for fake_kyiv', phase: 'preparing' }),
      event('progress', { percent: 20, stage: 'training', phase: 'executing' }),
      event('progress', { percent: 50, stage: 'iteration 5/10', phase: 'executing' }),
      event('progress', { percent: 88, stage: 'metrics and charts', phase: 'post-processing' }),
      event('status', { status: 'Completed' }),
    ];
    expect(timelineOf(events)).toEqual([
      { status: 'queued', at: AT, reason: null, phase: null },
      { status: 'running', at: AT, reason: null, phase: null },
      { status: 'running', at: AT, reason: 'transpiling for fake_kyiv', phase: 'preparing' },
      { status: 'running', at: AT, reason: 'training', phase: 'executing' },
      { status: 'running', at: AT, reason: 'metrics and charts', phase: 'post-processing' },
      { status: 'Completed', at: AT, reason: null, phase: null },
    ]);
  });

  it("shows a device run's provider reports in the timeline, once per change", () => {
    // The worker's own wording (quantum/devices.py provider_stage); IBM reports no queue position.
    const report = (state: string, stage: string) => ({
      percent: 20,
      stage,
      phase: 'executing',
      provider: { job_id: 'd5q', state, queue_position: null },
    });
    const queued = report('QUEUED', 'Queued at the provider (12 jobs pending on ibm_kyiv)');
    const events = [
      event('status', { status: 'running' }),
      event('progress', { percent: 17, stage: 'transpiling for ibm_kyiv', phase: 'preparing' }),
      event('progress', queued),
      event('progress', queued),
      event('progress', report('RUNNING', 'Running on ibm_kyiv at the provider')),
      event('progress', { percent: 30, stage: 'iteration 1/5', phase: 'executing' }),
      event('progress', report('QUEUED', 'Queued at the provider (3 jobs pending on ibm_kyiv)')),
      event('status', { status: 'Completed' }),
    ];
    expect(timelineOf(events).map((entry) => [entry.phase, entry.reason])).toEqual([
      [null, null],
      ['preparing', 'transpiling for ibm_kyiv'],
      ['executing', 'Queued at the provider (12 jobs pending on ibm_kyiv)'],
      ['executing', 'Running on ibm_kyiv at the provider'],
      ['executing', 'Queued at the provider (3 jobs pending on ibm_kyiv)'],
      [null, null],
    ]);
  });

  it('names the model from the body before there is a result', () => {
    expect(modelTypeOf({ params: { training_model_type: 'Quantum' }, result: null })).toBe('Quantum');
    expect(modelTypeOf({ params: { model: 'SVM' }, result: null })).toBe('SVM');
    expect(modelTypeOf({ params: { method: 'QAOA' }, result: null })).toBe('QAOA');
    expect(modelTypeOf({ params: {}, result: null })).toBeNull();
  });
});

describe('firstDifference', () => {
  it('names the first differing field as a JSON pointer, or null when equal', () => {
    expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBeNull();
    expect(firstDifference({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] })).toBe('/b/1');
    expect(firstDifference({ a: 1 }, { a: 1, extra: true })).toBe('/extra');
    expect(firstDifference({ a: { 'x/y': 1 } }, { a: {} })).toBe('/a/x~1y');
    expect(firstDifference({ n: 1 }, { n: '1' })).toBe('/n');
  });
});

describe('outputs of a problem that predicts: result type and model name', () => {
  const training = { training_model_type: 'classical', model_name: 'FCN', epochs: 20 };
  const prediction = { model_name: 'densenet121', application_id: 3 };

  it("a training is 'Training' and names its model from the start; other problems' outputs have no result type", () => {
    const queued = job({ kind: 'brain-tumor', params: training, status: 'queued' });
    expect(resultTypeOf(queued, true)).toBe('Training');
    expect(modelTypeOf(queued)).toBe('FCN');
    expect(resultTypeOf(job(), false)).toBeNull();
    expect(outputDetail(job(), []).output_data.result_type).toBe('Training');
  });

  it("a training's detail keeps the handler's per-epoch history beside the losses", () => {
    const result = {
      problem: 'brain-tumor',
      model: 'FCN',
      model_type: 'Classical',
      losses: { train: [0.9, 0.5], test: [1.0, 0.8] },
      output_data: {
        result_type: 'Training',
        training_history: {
          loss: [0.9, 0.5],
          accuracy: [0.4, 0.7],
          val_accuracy: [0.3, 0.6],
          val_loss: [1.0, 0.8],
        },
      },
    };
    const detail = outputDetail(
      job({ kind: 'brain-tumor', params: training, status: 'Completed', result }),
      [],
    );
    expect(detail.output_data).toEqual({
      result_type: 'Training',
      training_history: {
        loss: [0.9, 0.5],
        accuracy: [0.4, 0.7],
        val_accuracy: [0.3, 0.6],
        val_loss: [1.0, 0.8],
        train_loss: [0.9, 0.5],
        test_loss: [1.0, 0.8],
      },
    });
  });

  it("a prediction is 'Prediction' with its class, probabilities, image and model, and no history", () => {
    const output = {
      result_type: 'Prediction',
      prediction: 'glioma',
      probabilities: { meningioma: 0.1, glioma: 0.8, pituitary: 0.1 },
      image: { name: 'scan.png', kind: 'png', width: 512, height: 512 },
      model: { output_id: 5, model_name: 'densenet121' },
    };
    const done = job({
      kind: 'brain-tumor',
      params: prediction,
      status: 'Completed',
      result: { problem: 'brain-tumor', model: 'densenet121', model_type: 'Classical', output_data: output },
    });
    expect(resultTypeOf(done, true)).toBe('Prediction');
    // the result says what it is, whatever the problem file says
    expect(resultTypeOf(done, false)).toBe('Prediction');
    expect(outputDetail(done, []).output_data).toEqual({ ...output, training_history: null });
  });
});
