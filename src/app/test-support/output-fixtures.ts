// The output both output views' tests start from: a Completed stock-price run with logs, metrics beside
// the baseline, one loss chart and its dataset; each test overrides what it is about.
import { createExampleAppData } from '../../engine';
import { browserRegistry } from '../../renderers/browser-registry';
import type { OutputDetail } from '../api/outputs';

/** A Completed stock-price output (id 41 of application 5), with `overrides` applied on top. */
export function completedOutput(overrides: Partial<OutputDetail> = {}): OutputDetail {
  const stock = browserRegistry().getProblem('stock-price-prediction');
  return {
    id: 41,
    name: 'Tech stocks #41',
    status: 'Completed',
    created_at: '2026-03-03T10:00:00.000Z',
    started_at: '2026-03-03T10:00:01.000Z',
    completed_at: '2026-03-03T10:00:20.000Z',
    application_id: 5,
    problem_id: 'stock-price-prediction',
    execution_time: 19.256,
    trained_model_type: 'LSTM',
    trained_model_path: null,
    app_data: createExampleAppData(stock).appData as Record<string, unknown>,
    simplified_app_data: {},
    output_logs: [{ level: 'info', message: 'Epoch 1/2 done', at: '2026-03-03T10:00:05.000Z' }],
    progress: { percent: 100, stage: 'done' },
    metrics: { mse: 0.25, rmse: 0.5 },
    baseline: { name: 'Persistence', metrics: { mse: 0.36, rmse: 0.6 } },
    charts: [
      {
        type: 'line',
        title: 'Training and test loss per epoch',
        label: 'MSE',
        series: [{ name: 'train', data: [0.5, 0.3] }],
        categories: [1, 2],
      },
    ],
    error: null,
    dataset: {
      label: 'Apple and Google stock price',
      synthetic: false,
      sha256: 'ab',
      rows: 500,
      rows_used: 100,
    },
    run_record: null,
    quantum_backend: null,
    output_data: { result_type: 'Training', training_history: null },
    ...overrides,
  };
}
