// @vitest-environment jsdom
// Issue #10's output views in the browser: the application's Run (the engine's body, the toast, the
// refusal text), the output detail's tab and badge rules, live progress from the output stream, Stop,
// charts and metrics beside the baseline, and the Model Inference tab's checks and tables.

import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData, mapJobRequest } from '../../../../../engine';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { apexConfig, heatRanges } from '../../../../components/chart-spec-view';
import { ToastProvider } from '../../../../components/toasts';
import { account, fakeApi, type Call } from '../../../../test-support/fake-api';
import { completedOutput } from '../../../../test-support/output-fixtures';
import { cleanBrowserAfterEach, storeToken, Where } from '../../../../test-support/page-test';
import { ApplicationDetailPage } from '../../../applications/application-detail-page';
import { AuthProvider } from '../../../../session/auth-context';
import type { ChartSpec, OutputDetail } from '../../../../api/outputs';
import { parseCsvPreview } from '../inference/csv-preview';
import { OutputDetailPage } from './output-detail-page';
import {
  applyEvent,
  EMPTY_LIVE,
  formatExecutionTime,
  formatMetric,
  metricLabel,
  metricNotes,
  metricRows,
  outputTabs,
  predictedColumn,
  quantumBackend,
  withMetricCategories,
} from '../output-rules';

// ApexCharts needs a real layout engine; the stand-in shows what it was asked to draw.
vi.mock('react-apexcharts', () => ({
  default: (props: { type: string; series: unknown }) => (
    <div data-testid="apex" data-type={props.type} data-series={JSON.stringify(props.series)} />
  ),
}));
// The pipeline diagram (React Flow) is the renderers' own tested component.
vi.mock('../../../../../renderers', () => ({
  PipelineFlow: (props: { problem: { id: string } }) => (
    <div data-testid="pipeline-flow">{props.problem.id}</div>
  ),
}));

beforeEach(storeToken);
cleanBrowserAfterEach();

const lossChart: ChartSpec = {
  type: 'line',
  title: 'Training and test loss per epoch',
  label: 'MSE (normalized)',
  series: [
    { name: 'train', data: [0.5, 0.3] },
    { name: 'test', data: [0.6, 0.4] },
  ],
  categories: [1, 2],
};
const confusion: ChartSpec = {
  type: 'confusion_matrix',
  title: 'SVM: confusion matrix (test part)',
  label: 'transactions',
  series: [
    { name: 'true 0', data: [90, 3] },
    { name: 'true 1', data: [2, 5] },
  ],
  categories: ['0', '1'],
};

function output(overrides: Partial<OutputDetail> = {}): OutputDetail {
  return completedOutput({
    trained_model_path: 'outputs/41/model.pt',
    simplified_app_data: { output_layer_name: null, 'Model Configurations': {} },
    metrics: { mse: 0.25, rmse: 0.5, baseline_mse: 0.36 },
    charts: [lossChart, confusion],
    dataset: {
      label: 'Apple and Google stock price',
      synthetic: true,
      sha256: 'ab',
      rows: 5398,
      rows_used: 100,
    },
    run_record: { seed: 42 },
    quantum_backend: null,
    ...overrides,
  });
}

function renderOutput(
  detail: OutputDetail,
  extra: Record<string, Parameters<typeof fakeApi>[0][string]> = {},
) {
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail } }),
    ...extra,
  });
  render(
    <AuthProvider>
      <MemoryRouter initialEntries={['/applications/5/outputs/41']}>
        <Routes>
          <Route path="/applications/:appId/outputs/:outputId" element={<OutputDetailPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </AuthProvider>,
  );
  return calls;
}

const tabNames = () => screen.getAllByRole('tab').map((tab) => tab.textContent);

describe('output rules', () => {
  it('offers Model Inference only with a trained model, Pipeline first shown, Results only for predictions', () => {
    expect(outputTabs({ trained_model_path: 'm.pt', simplified_app_data: null })).toEqual({
      tabs: ['Model Inference', 'Pipeline', 'Results', 'Visualization'],
      initial: 'Pipeline',
    });
    expect(outputTabs({ trained_model_path: null, simplified_app_data: null }).tabs).toEqual([
      'Pipeline',
      'Results',
      'Visualization',
    ]);
    expect(
      outputTabs({ trained_model_path: 'm.pt', simplified_app_data: { output_layer_name: 'predictions' } }),
    ).toEqual({ tabs: ['Results'], initial: 'Results' });
  });

  it('shows execution time with 2 decimals and puts each metric beside the baseline of the same name', () => {
    expect(formatExecutionTime(19.256)).toBe('19.26 s');
    expect(formatExecutionTime(null)).toBe('N/A');
    expect(
      metricRows(
        { r2: 0.5, mse: 0.25, baseline_mse: 0.36 },
        { name: 'Persistence', metrics: { r2: 0, mse: 0.36 } },
      ),
    ).toEqual([
      { name: 'mse', model: 0.25, baseline: 0.36 },
      { name: 'r2', model: 0.5, baseline: 0 },
    ]);
  });

  it('words where quantum circuits ran as the worker decides it (exact, noise, shots, device)', () => {
    const run = (config: Record<string, unknown>) =>
      quantumBackend({ model_configurations: { model_type: 'Quantum', quantum_shots: 2048, ...config } });
    const sim = (sim_quantum_device: string, quantum_noise_model = 'None') => ({
      quantum_device: { use_quantum_sim: true, sim_quantum_device, quantum_noise_model },
    });
    expect(run(sim('statevector_simulator'))).toBe('statevector_simulator, exact (no shots, no noise)');
    expect(run(sim('qasm_simulator'))).toBe('qasm_simulator, 2,048 shots, no noise');
    expect(run(sim('aer_simulator_statevector', 'fake_brisbane'))).toBe(
      'aer_simulator_statevector with the fake_brisbane noise model, 2,048 shots',
    );
    expect(run({ quantum_device: { use_quantum_sim: false, act_quantum_device: 'ibm_kyiv' } })).toBe(
      'IBM quantum device ibm_kyiv, 2,048 shots',
    );
    // Shots left out: the worker's 1024.
    expect(
      quantumBackend({
        model_configurations: { model_type: 'Quantum', ...sim('qasm_simulator') },
      }),
    ).toBe('qasm_simulator, 1,024 shots, no noise');
    // Demand forecasting's hybrid QNN has qubits and no device choice: the exact statevector.
    expect(quantumBackend({ model_configurations: { model_type: 'Quantum', qubits: 4 } })).toBe(
      'Exact statevector simulation (no shots)',
    );
    expect(
      quantumBackend({ model_configurations: { model_type: 'Classical', ...sim('qasm_simulator') } }),
    ).toBe(null);
    expect(quantumBackend(null)).toBe(null);
  });

  it('labels metrics in words, drops the fMeasure alias, keeps small values readable, names the units', () => {
    expect(['mse', 'mape', 'r2', 'direction_accuracy', 'pr_auc', 'expected_return'].map(metricLabel)).toEqual(
      ['MSE', 'MAPE (%)', 'R²', 'Direction accuracy', 'PR AUC', 'Expected return'],
    );
    expect(metricLabel('val_loss')).toBe('Val loss');
    expect(metricLabel('bestEpoch')).toBe('Best epoch');
    expect(metricRows({ f1: 0.5, fMeasure: 0.5 }, null).map((row) => row.name)).toEqual(['f1']);
    // A different value under the old name is a metric of its own.
    expect(metricRows({ f1: 0.5, fMeasure: 0.4 }, null).map((row) => row.name)).toEqual(['f1', 'fMeasure']);
    expect(formatMetric(-0.0024261184716570417)).toBe('-0.002426');
    expect(formatMetric(-0.00004)).toBe('-0.00004000');
    expect(formatMetric(0.005)).toBe('0.005000');
    expect(formatMetric(0.61470723)).toBe('0.6147');
    expect(formatMetric(0)).toBe('0');
    expect(formatMetric(92773918.96432997)).toBe('92,773,918.96');
    expect(formatMetric(-2881.30393)).toBe('-2,881.30');
    expect(metricNotes(['mse', 'rmse', 'mape'], 'Weekly_Sales')).toEqual([
      "On the test part, in Weekly_Sales's units: RMSE and MAE in those units, MSE in their square; MAPE in " +
        'percent; R² and direction accuracy as fractions (1 is perfect).',
    ]);
    expect(metricNotes(['loss'])).toEqual([]);
    expect(predictedColumn({ preprocess: { prediction_features: ['Close'] } })).toBe('Close');
    expect(predictedColumn({ preprocess: { prediction_feature: 'Weekly_Sales' } })).toBe('Weekly_Sales');
    expect(predictedColumn({ preprocess: {} })).toBe(null);
    const bars: ChartSpec = {
      type: 'bar',
      title: 'Test error: model and baselines',
      label: 'error',
      series: [{ name: 'Quantum', data: [0.61, 0.51] }],
      categories: ['rmse', 'mae'],
    };
    expect(withMetricCategories(bars).categories).toEqual(['RMSE', 'MAE']);
    const stocks = { ...bars, categories: ['AAPL', 'rmse'] };
    expect(withMetricCategories(stocks)).toBe(stocks);
  });

  it('folds stream events into progress, logs, live loss points and charts', () => {
    const at = '2026-03-03T10:00:00.000Z';
    let state = EMPTY_LIVE;
    const events = [
      { seq: 1, type: 'status', payload: { status: 'running' }, created_at: at },
      { seq: 2, type: 'progress', payload: { percent: 40, stage: 'Epoch 2/5' }, created_at: at },
      { seq: 3, type: 'metric', payload: { name: 'train_loss', value: 0.4, step: 2 }, created_at: at },
      { seq: 4, type: 'log', payload: { level: 'info', message: 'hello' }, created_at: at },
      { seq: 5, type: 'chart', payload: { chart: lossChart }, created_at: at },
      { seq: 6, type: 'chart', payload: { chart: { ...lossChart, categories: [1, 2, 3] } }, created_at: at },
    ];
    for (const event of events) state = applyEvent(state, event);
    expect(state.status).toBe('running');
    expect(state.progress).toEqual({ percent: 40, stage: 'Epoch 2/5' });
    expect(state.stepped.train_loss).toEqual([{ step: 2, value: 0.4 }]);
    expect(state.logs.map((l) => l.message)).toEqual(['hello']);
    expect(state.charts).toHaveLength(1);
    expect(state.charts[0].categories).toEqual([1, 2, 3]);
  });
});

describe('chart specs in ApexCharts', () => {
  it('draws a confusion matrix as a heatmap with its first row on top and colour ranges in thirds', () => {
    const config = apexConfig(confusion);
    expect(config.type).toBe('heatmap');
    expect(config.series.map((s) => s.name)).toEqual(['true 1', 'true 0']);
    expect(config.series[1].data).toEqual([
      { x: '0', y: 90 },
      { x: '1', y: 3 },
    ]);
    expect(heatRanges([0, 30, 90]).map((r) => [r.from, r.to])).toEqual([
      [0, 30],
      [30, 60],
      [60, 90],
    ]);
  });

  it('draws [x, y] pairs on a numeric axis and numbers on the categories', () => {
    const roc = apexConfig({
      type: 'line',
      title: 'ROC',
      label: 'true positive rate',
      series: [
        {
          name: 'SVM',
          data: [
            [0, 0],
            [0.5, 0.9],
            [1, 1],
          ],
        },
      ],
      categories: [],
    });
    expect(roc.options.xaxis?.type).toBe('numeric');
    expect(roc.series[0].data).toEqual([
      [0, 0],
      [0.5, 0.9],
      [1, 1],
    ]);
    const bars = apexConfig({ ...lossChart, type: 'bar' });
    expect(bars.type).toBe('bar');
    expect(bars.options.xaxis?.categories).toEqual(['1', '2']);
  });
});

describe('the output detail page', () => {
  it('shows a Completed output: green badge with its date, Pipeline first, metrics beside the baseline, every chart', async () => {
    renderOutput(output());
    expect(await screen.findByRole('heading', { name: 'Tech stocks #41' })).toBeTruthy();
    const badge = screen.getByTestId('job-status');
    expect(badge.textContent).toBe('Completed');
    expect(badge.className).toContain('completed');
    expect(screen.getByTestId('completed-at').textContent).not.toBe('');
    expect(screen.getByTestId('execution-time').textContent).toBe('19.26 s');
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(tabNames()).toEqual(['Model Inference', 'Pipeline', 'Results', 'Visualization']);
    expect(screen.getByRole('tab', { name: 'Pipeline' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByTestId('pipeline-flow').textContent).toBe('stock-price-prediction');

    fireEvent.click(screen.getByRole('tab', { name: 'Results' }));
    expect(screen.getByTestId('result-logs').textContent).toContain('[info] Epoch 1/2 done');
    expect(screen.getByTestId('application-data').textContent).toContain('"training_features"');

    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    const table = screen.getByTestId('metrics-table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Metric', 'LSTM', 'Persistence']);
    const mse = within(table).getByRole('rowheader', { name: 'MSE' }).closest('tr')!;
    expect(mse.dataset.metric).toBe('mse');
    expect([...mse.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['0.2500', '0.3600']);
    expect(within(table).queryByRole('rowheader', { name: /baseline/i })).toBeNull();
    expect(screen.getByTestId('output-dataset').textContent).toContain('Synthetic');
    // The chart library loads on first use: the charts are there once its module is.
    const charts = await screen.findAllByTestId('apex');
    expect(charts.map((chart) => chart.dataset.type)).toEqual(['line', 'heatmap']);
  });

  it("shows 'n/a' for a metric the baseline does not define (persistence's direction accuracy)", async () => {
    // The worker reports persistence's direction accuracy as null ("no change" states no direction), so
    // the detail's baseline has no value for it: the cell says n/a, not a made-up 0.
    renderOutput(
      output({
        metrics: { mse: 0.25, direction_accuracy: 0.55 },
        baseline: { name: 'persistence (tomorrow = today)', metrics: { mse: 0.36 } },
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Tech stocks #41' })).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    const table = screen.getByTestId('metrics-table');
    const cells = (name: string) =>
      [...within(table).getByRole('rowheader', { name }).closest('tr')!.querySelectorAll('td')].map(
        (td) => td.textContent,
      );
    expect(cells('Direction accuracy')).toEqual(['0.5500', 'n/a']);
    expect(cells('MSE')).toEqual(['0.2500', '0.3600']);
  });

  it('says where a quantum output ran and labels its metrics in words with their units (issue #12)', async () => {
    const device = {
      use_quantum_sim: true,
      sim_quantum_device: 'aer_simulator_statevector',
      quantum_noise_model: 'None',
      check_custom_ibm_token: false,
    };
    renderOutput(
      output({
        trained_model_type: 'Variational Quantum Classifier',
        app_data: {
          preprocess: { target_column: 'Class' },
          model_configurations: { model_type: 'Quantum', quantum_shots: 1024, quantum_device: device },
        },
        metrics: { accuracy: 0.935, f1: 0.0347, fMeasure: 0.0347, roc_auc: 0.7178, risk: 0.0016652 },
        baseline: { name: 'majority class', metrics: { accuracy: 0.995, f1: 0, fMeasure: 0, roc_auc: 0.5 } },
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Tech stocks #41' })).toBeTruthy();
    // Exact statevector: the 1024 shots of the form are not what ran.
    expect(screen.getByTestId('quantum-backend').textContent).toBe(
      'aer_simulator_statevector, exact (no shots, no noise)',
    );
    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    const table = screen.getByTestId('metrics-table');
    const rows = within(table).getAllByRole('rowheader');
    expect(rows.map((th) => th.textContent)).toEqual(['Accuracy', 'F1 score', 'ROC AUC', 'Risk']);
    expect(rows.map((th) => th.closest('tr')!.dataset.metric)).toEqual(['accuracy', 'f1', 'roc_auc', 'risk']);
    // A small value keeps its significant digits.
    expect(within(rows[3].closest('tr')!).getAllByRole('cell')[0].textContent).toBe('0.001665');
    const notes = screen.getAllByTestId('metrics-note').map((p) => p.textContent);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/fractions of 1.*class 1/);
    expect(notes[1]).toMatch(/variance of its summed daily return/);
  });

  it("prefers where the result says the circuits ran over the form's settings", async () => {
    const device = { use_quantum_sim: true, quantum_noise_model: 'fake_kyiv', check_custom_ibm_token: false };
    const ran =
      'trained under the fake_kyiv noise model (exact noisy channel), test predictions on Aer with 1,024 shots (12 circuits)';
    renderOutput(
      output({
        trained_model_type: 'Hybrid QNN',
        app_data: {
          model_configurations: { model_type: 'Quantum', quantum_shots: 1024, quantum_device: device },
        },
        quantum_backend: ran,
      }),
    );
    expect(await screen.findByRole('heading', { name: 'Tech stocks #41' })).toBeTruthy();
    expect(screen.getByTestId('quantum-backend').textContent).toBe(ran);
  });

  it('gives a classical output no quantum backend', async () => {
    renderOutput(output({ app_data: { model_configurations: { model_type: 'Classical' } } }));
    expect(await screen.findByRole('heading', { name: 'Tech stocks #41' })).toBeTruthy();
    expect(screen.queryByTestId('quantum-backend')).toBeNull();
  });

  it('shows a Failed output red with its reason and no Model Inference without a trained model', async () => {
    renderOutput(
      output({
        status: 'Failed',
        trained_model_path: null,
        error: 'The dataset has no column Close.',
        charts: [],
        metrics: {},
        baseline: null,
      }),
    );
    const badge = await screen.findByTestId('job-status');
    expect(badge.className).toContain('failed');
    expect(screen.getByTestId('failure-reason').textContent).toBe('The dataset has no column Close.');
    expect(tabNames()).toEqual(['Pipeline', 'Results', 'Visualization']);
    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    expect(screen.getByText('No plots available for Tech stocks #41.')).toBeTruthy();
  });

  it('follows an Ongoing output live (progress, logs, loss) and stops it', async () => {
    let stopped = false;
    const running = output({
      status: 'running',
      completed_at: null,
      execution_time: null,
      trained_model_path: null,
      metrics: {},
      baseline: null,
      charts: [],
      output_logs: [],
    });
    const calls = renderOutput(running, {
      'GET /api/application-outputs/41/detail': () => ({
        body: { success: true, data: stopped ? { ...running, status: 'Manual Stop' } : running },
      }),
      'POST /api/stock-price-prediction/stop-job/41': () => {
        stopped = true;
        return { status: 202, body: { success: true, message: 'Stopping.' } };
      },
    });
    // The output stream: two stored events, then it stays open until the page leaves.
    const fallback = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      if (!String(input).endsWith('/application-outputs/41/stream')) return fallback(input, init);
      const at = '2026-03-03T10:00:00.000Z';
      const blocks = [
        { seq: 1, type: 'progress', payload: { percent: 60, stage: 'Epoch 3/5' }, created_at: at },
        { seq: 2, type: 'metric', payload: { name: 'train_loss', value: 0.2, step: 3 }, created_at: at },
        { seq: 3, type: 'log', payload: { level: 'info', message: 'epoch 3 done' }, created_at: at },
      ].map((event) => `data: ${JSON.stringify(event)}\n\n`);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(blocks.join('')));
          init?.signal?.addEventListener('abort', () =>
            controller.error(new DOMException('aborted', 'AbortError')),
          );
        },
      });
      return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    });
    const badge = await screen.findByTestId('job-status');
    expect(badge.className).toContain('ongoing');
    expect(badge.querySelector('.spinner')).not.toBeNull();
    await waitFor(() => expect(screen.getByTestId('live-progress').textContent).toContain('Epoch 3/5'));
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('60');
    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    const live = JSON.parse((await screen.findByTestId('apex')).dataset.series!) as {
      name: string;
      data: number[];
    }[];
    expect(live).toEqual([{ name: 'train_loss', data: [0.2] }]);
    fireEvent.click(screen.getByRole('tab', { name: 'Results' }));
    expect(screen.getByTestId('result-logs').textContent).toContain('epoch 3 done');

    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, stop' }));
    await waitFor(() => expect(screen.getByTestId('job-status').textContent).toBe('Manual Stop'));
    expect(screen.getByTestId('job-status').className).toContain('stopped');
    expect(
      calls.some((c) => c.method === 'POST' && c.path === '/api/stock-price-prediction/stop-job/41'),
    ).toBe(true);
  });

  it("goes back to the application's outputs", async () => {
    renderOutput(output());
    fireEvent.click(await screen.findByRole('button', { name: /Outputs/ }));
    expect(screen.getByTestId('where').textContent).toBe('/applications/5');
  });
});

describe('the Model Inference tab', () => {
  const csv = [
    'Date,Open,High,Low,Close',
    '',
    ...Array.from({ length: 35 }, (_, i) => `2024-01-${i},1,2,0.333333333333333,${i}`),
    'bad,row',
  ].join('\n');
  const file = (name: string, text: string) => new File([text], name, { type: 'text/csv' });

  it('reads a CSV preview: empty lines skipped, rows of another width dropped, 30 shown', () => {
    const preview = parseCsvPreview(csv);
    expect(preview.columns).toEqual(['Date', 'Open', 'High', 'Low', 'Close']);
    expect(preview.total).toBe(35);
    expect(preview.rows).toHaveLength(30);
    expect(parseCsvPreview('a,b\n"x, y",2').rows).toEqual([['x, y', '2']]);
  });

  it('refuses another file type and no feature, then uploads and shows Actual vs Predicted', async () => {
    const calls = renderOutput(output(), {
      'POST /api/upload/ada_l/ada%40example.org': () => ({
        status: 201,
        body: { success: true, filename: 'f.csv', url: '/api/download/f.csv/ada_l/ada%40example.org' },
      }),
      'POST /api/stock-price-prediction/inference/7/5': () => ({
        body: { success: true, data: { actual: [10, 11], predicted: [10.5, 10.75], output_id: 41, rows: 2 } },
      }),
    });
    fireEvent.click(await screen.findByRole('tab', { name: 'Model Inference' }));
    const input = screen.getByTestId('inference-file');
    fireEvent.change(input, { target: { files: [file('prices.xlsx', 'x')] } });
    expect(await screen.findByText('Please upload a csv file')).toBeTruthy();

    fireEvent.change(input, { target: { files: [file('prices.csv', csv)] } });
    expect(await screen.findByText('Only showing 30 rows')).toBeTruthy();
    expect(screen.getByTestId('inference-preview').querySelectorAll('tbody tr')).toHaveLength(30);
    // Long decimals are rounded as in the Dataset tab's preview (the file's digits in the title).
    expect(within(screen.getByTestId('inference-preview')).getAllByText('0.3333')[0]!.title).toBe(
      '0.333333333333333',
    );
    // Date is hidden from the features; the model's training features are ticked.
    const boxes = screen.getAllByRole('checkbox') as HTMLInputElement[];
    expect(boxes.map((b) => [b.parentElement!.textContent!.trim(), b.checked])).toEqual([
      ['Open', true],
      ['High', true],
      ['Low', true],
      ['Close', true],
    ]);
    for (const box of boxes) fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Start Inferencing' }));
    expect(await screen.findByText('Please select a feature')).toBeTruthy();

    fireEvent.click(boxes[3]);
    fireEvent.click(screen.getByRole('button', { name: 'Start Inferencing' }));
    const result = await screen.findByTestId('inference-result');
    expect([...result.querySelectorAll('tbody tr')].map((tr) => tr.textContent)).toEqual([
      '11010.5000',
      '21110.7500',
    ]);
    const inference = calls.find((c: Call) => c.path === '/api/stock-price-prediction/inference/7/5')!;
    expect(inference.body).toEqual({
      features: ['Close'],
      data_url: '/api/download/f.csv/ada_l/ada%40example.org',
      output_id: 41,
    });
  });

  it("reports a refused inference as 'HTTP error! status: {code}, details: {text}'", async () => {
    renderOutput(output(), {
      'POST /api/upload/ada_l/ada%40example.org': () => ({
        status: 201,
        body: { success: true, url: '/api/download/f.csv/ada_l/x' },
      }),
      'POST /api/stock-price-prediction/inference/7/5': () => ({
        status: 400,
        body: { success: false, message: 'The dataset has no column Close.' },
      }),
    });
    fireEvent.click(await screen.findByRole('tab', { name: 'Model Inference' }));
    fireEvent.change(screen.getByTestId('inference-file'), { target: { files: [file('p.csv', csv)] } });
    await screen.findByText('Only showing 30 rows');
    fireEvent.click(screen.getByRole('button', { name: 'Start Inferencing' }));
    expect(
      await screen.findByText('HTTP error! status: 400, details: The dataset has no column Close.'),
    ).toBeTruthy();
  });
});

describe("the application's Run", () => {
  const demand = browserRegistry().getProblem('demand-forecasting');
  const app = {
    id: 5,
    app_name: 'Weekly sales',
    app_problem_id: 'demand-forecasting',
    app_problem: { id: 'demand-forecasting', name: 'Demand Forecasting', workspace: 'development' },
    category: { id: 'financial', name: 'Financial' },
    user_id: 7,
    status: 'active',
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-02T10:00:00.000Z',
    app_data: createExampleAppData(demand).appData,
  };

  function renderDetail(
    appData: unknown,
    execute: Parameters<typeof fakeApi>[0][string],
    listedStatus = 'queued',
  ) {
    let outputs: unknown[] = [];
    const calls = fakeApi({
      'GET /api/users/me': () => ({ body: { success: true, data: account } }),
      'GET /api/applications/5/detail': () => ({
        body: { success: true, data: { ...app, app_data: appData } },
      }),
      'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: outputs } }),
      'POST /api/demand-forecasting/execute-job/7': async (call) => {
        const reply = await execute(call);
        if ((reply.status ?? 200) < 300)
          outputs = [
            {
              id: 77,
              name: 'Weekly sales #77',
              status: listedStatus,
              created_at: app.created_at,
              completed_at: null,
              application_id: 5,
            },
          ];
        return reply;
      },
    });
    render(
      <ToastProvider>
        <AuthProvider>
          <MemoryRouter initialEntries={['/applications/5']}>
            <Routes>
              <Route path="/applications/:appId" element={<ApplicationDetailPage />} />
            </Routes>
          </MemoryRouter>
        </AuthProvider>
      </ToastProvider>,
    );
    return calls;
  }

  it("posts the engine's body, says 'Application is running.', lists the new output and stays disabled", async () => {
    const calls = renderDetail(app.app_data, () => ({
      status: 201,
      body: { success: true, message: 'Application is running.', data: { output_id: 77 } },
    }));
    const run = await screen.findByRole('button', { name: 'Run' });
    await waitFor(() => expect(calls.some((c) => c.path === '/api/users/me')).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    fireEvent.click(run);
    expect(await screen.findByText('Application is running.')).toBeTruthy();
    const posted = calls.find((c) => c.method === 'POST')!;
    expect(posted.body).toEqual(mapJobRequest(demand, app.app_data, { applicationId: 5, userId: 7 }).body);
    expect(await screen.findByText('77')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'View Details' }).getAttribute('href')).toBe(
      '/applications/5/outputs/77',
    );
    expect((screen.getByRole('button', { name: 'Running…' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('enables Run again as soon as the list shows the started output Completed (a quick run)', async () => {
    const calls = renderDetail(
      app.app_data,
      () => ({ status: 201, body: { success: true, data: { output_id: 77 } } }),
      'Completed',
    );
    const run = await screen.findByRole('button', { name: 'Run' });
    await waitFor(() => expect(calls.some((c) => c.path === '/api/users/me')).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    fireEvent.click(run);
    expect(await screen.findByText('77')).toBeTruthy();
    // Within a second, before the run hook's own read at OUTPUTS_POLL_MS (2 s): the list's read ends it.
    await waitFor(
      () => expect((screen.getByRole('button', { name: 'Run' }) as HTMLButtonElement).disabled).toBe(false),
      { timeout: 1000 },
    );
    expect(calls.some((c) => c.path === '/api/application-outputs/77/detail')).toBe(false);
  });

  it("shows the server's refusal as 'Failed to execute the application! …' and can run again", async () => {
    renderDetail(app.app_data, () => ({
      status: 400,
      body: {
        success: false,
        message: 'Failed to execute the application! Epochs must be less than or equal to 100',
      },
    }));
    const run = await screen.findByRole('button', { name: 'Run' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    fireEvent.click(run);
    expect((await screen.findByTestId('run-error')).textContent).toBe(
      'Failed to execute the application! Epochs must be less than or equal to 100',
    );
    expect((screen.getByRole('button', { name: 'Run' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('refuses a blank application before calling the server', async () => {
    const calls = renderDetail({}, () => ({ status: 500 }));
    const run = await screen.findByRole('button', { name: 'Run' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    fireEvent.click(run);
    expect((await screen.findByTestId('run-error')).textContent).toBe(
      'Please fill the required fields in the Dataset and Configurations tabs.',
    );
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });
});
