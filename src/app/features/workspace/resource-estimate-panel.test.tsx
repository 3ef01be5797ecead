// @vitest-environment jsdom
// The Model Configurations tab's resource estimate (issue #12) on the real stock price prediction schema:
// the debounced POST of the current job body (latest wins), the numbers shown, the quantum-only note and
// a refusal in words. fetch is stubbed at the boundary.

import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createExampleAppData, mapJobRequest, type AppData } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach } from '../../test-support/page-test';
import {
  describedUnit,
  ESTIMATE_INCOMPLETE,
  ESTIMATE_QUANTUM_ONLY,
  ESTIMATE_REFUSED,
  formatDuration,
  noisyPlan,
  ResourceEstimatePanel,
  runTimeText,
} from './resource-estimate-panel';
import { ESTIMATE_DEBOUNCE_MS } from './use-resource-estimate';

const stock = browserRegistry().getProblem('stock-price-prediction');
const example = createExampleAppData(stock);
const context = { ...example.context, applicationId: 5, userId: 7 };
const ROUTE = 'POST /api/stock-price-prediction/resource-estimate/7';

const withEpochs = (epochs: number): AppData => ({
  ...example.appData,
  model_configurations: { ...example.appData.model_configurations, epochs },
});

const estimate = (qubits: number) => ({
  success: true,
  data: {
    problem: 'stock-price-prediction',
    model: 'QLSTM',
    qubits,
    depth: 42,
    two_qubit_gates: 12,
    transpiled_for: 'aer_simulator',
    evaluations_per_iteration: 96,
    evaluation_unit: 'epoch',
    total_shots: 1024000,
    estimated_seconds: 185,
  },
});

cleanBrowserAfterEach();

const panel = (appData: AppData, ctx = context) => (
  <ResourceEstimatePanel problem={stock} appData={appData} context={ctx} />
);

describe('ResourceEstimatePanel', () => {
  it('waits for the edits to settle and posts only the latest job body', async () => {
    const calls = fakeApi({ [ROUTE]: () => ({ body: estimate(4) }) });
    const view = render(panel(withEpochs(5)));
    view.rerender(panel(withEpochs(6)));
    view.rerender(panel(withEpochs(7)));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const posted = calls.filter((c) => c.path.includes('resource-estimate'));
    expect(posted).toHaveLength(1);
    expect(posted[0]!.body).toEqual({
      params: mapJobRequest(stock, withEpochs(7), context).body,
      rows: context.rowCount,
    });
  });

  it("sends the noise model the form chose (the job extension's, not the body's)", async () => {
    const calls = fakeApi({ [ROUTE]: () => ({ body: estimate(4) }) });
    const configurations = example.appData.model_configurations as Record<string, unknown>;
    const noisy: AppData = {
      ...example.appData,
      model_configurations: {
        ...configurations,
        quantum_device: {
          ...(configurations.quantum_device as Record<string, unknown>),
          quantum_noise_model: 'fake_kyiv',
        },
      },
    };
    render(panel(noisy));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const posted = calls.filter((c) => c.path.includes('resource-estimate'));
    expect(posted.at(-1)!.body).toEqual({
      params: mapJobRequest(stock, noisy, context).body,
      rows: context.rowCount,
      noise_model: 'fake_kyiv',
    });
  });

  it('shows the numbers of the latest answer even when an older one arrives later', async () => {
    let releaseFirst: () => void = () => undefined;
    let n = 0;
    fakeApi({
      [ROUTE]: () => {
        n += 1;
        if (n === 1)
          return new Promise((resolve) => {
            releaseFirst = () => resolve({ body: estimate(99) });
          });
        return { body: estimate(6) };
      },
    });
    const view = render(panel(withEpochs(5)));
    await waitFor(() => expect(n).toBe(1), { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    view.rerender(panel(withEpochs(8)));
    await waitFor(() => expect(n).toBe(2), { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    await screen.findByText('6');
    releaseFirst();
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByText('99')).toBeNull();
    expect(screen.getByText('6')).toBeTruthy();
  });

  it('shows qubits, depth, two-qubit gates, evaluations, shots and the time measured on this server', async () => {
    fakeApi({ [ROUTE]: () => ({ body: estimate(4) }) });
    render(panel(example.appData));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const pairs = [...document.querySelectorAll('.estimate-figures > div')].map((d) => [
      d.querySelector('dt')!.textContent,
      d.querySelector('dd')!.textContent,
    ]);
    expect(pairs).toEqual([
      ['Qubits', '4'],
      ['Circuit depth (transpiled for aer_simulator)', '42'],
      ['Two-qubit gates', '12'],
      ['Circuit evaluations per epoch', '96'],
      ['Total shots', '1,024,000'],
      ['Estimated run time (measured on this server)', '3 min'],
    ]);
  });

  it("asks for the form's repeats and shows the worker's per-run figures and totals, multiplying nothing", async () => {
    // The worker's totals (here not 3x the per-run time, as a measured total may round otherwise) are shown
    // as they come: the panel multiplies nothing itself.
    const repeatedEstimate = {
      success: true,
      data: {
        ...estimate(4).data,
        repeats: 3,
        all_repeats: { total_shots: 3072000, estimated_seconds: 600, circuit_evaluations: 288 },
      },
    };
    const calls = fakeApi({ [ROUTE]: () => ({ body: repeatedEstimate }) });
    const repeated = {
      ...example.appData,
      model_configurations: { ...example.appData.model_configurations, repeats: 3 },
    };
    render(panel(repeated));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const posted = calls.filter((c) => c.path.includes('resource-estimate'));
    expect((posted.at(-1)!.body as { repeats?: number }).repeats).toBe(3);
    expect(screen.getByText('3 min per run, 10 min for 3 repeats')).toBeTruthy();
    expect(screen.getByText('1,024,000 per run, 3,072,000 for 3 repeats')).toBeTruthy();
    expect(runTimeText(185, 185, 1)).toBe('3 min');
    expect(runTimeText(185, null, 3)).toBe('3 min'); // no total reported: no made-up one
  });

  it('sends no repeats for a single run and shows per-run figures only', async () => {
    const calls = fakeApi({ [ROUTE]: () => ({ body: estimate(4) }) });
    render(panel(example.appData));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const posted = calls.filter((c) => c.path.includes('resource-estimate'));
    expect(posted.at(-1)!.body).not.toHaveProperty('repeats');
    expect(screen.getByText('1,024,000')).toBeTruthy();
  });

  it('reads a described unit after the number instead of as "per <unit>"', async () => {
    const described = estimate(4);
    described.data.evaluations_per_iteration = 14000;
    described.data.evaluation_unit = 'circuits (one per training row per evaluation)';
    fakeApi({ [ROUTE]: () => ({ body: described }) });
    render(panel(example.appData));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const row = [...document.querySelectorAll('.estimate-figures > div')].find((d) =>
      d.querySelector('dt')!.textContent!.startsWith('Circuit evaluations'),
    )!;
    expect(row.querySelector('dt')!.textContent).toBe('Circuit evaluations');
    expect(row.querySelector('dd')!.textContent).toBe(
      '14,000 circuits (one per training row per evaluation)',
    );
  });

  it("shows a noisy run's optimizer evaluations and simulator calls in words, when the worker plans them", async () => {
    const noisy = {
      ...estimate(4),
      data: { ...estimate(4).data, optimizer_evaluations: 40, simulator_calls: 41, noisy_circuits_run: 41 },
    };
    fakeApi({ [ROUTE]: () => ({ body: noisy }) });
    render(panel(example.appData));
    await screen.findByText('4', undefined, { timeout: ESTIMATE_DEBOUNCE_MS * 3 });
    const pairs = [...document.querySelectorAll('.estimate-figures > div')].map((d) => [
      d.querySelector('dt')!.textContent,
      d.querySelector('dd')!.textContent,
    ]);
    expect(pairs.slice(-3)).toEqual([
      ['Optimizer evaluations (all of the run)', '40'],
      ['Noisy simulation', '41 simulator calls running 41 circuits'],
      ['Estimated run time (measured on this server)', '3 min'],
    ]);
    expect(noisyPlan(1, 1)).toBe('1 simulator call running 1 circuit');
    expect(noisyPlan(3, null)).toBe('3 simulator calls');
    expect(noisyPlan(1200, 96000)).toBe('1,200 simulator calls running 96,000 circuits');
  });

  it('reads one described circuit in the singular (a portfolio QAOA: one circuit per energy evaluation)', () => {
    expect(describedUnit('circuits (one per energy evaluation)', 1)).toBe(
      'circuit (one per energy evaluation)',
    );
    expect(describedUnit('circuits (one per energy evaluation)', 2)).toBe(
      'circuits (one per energy evaluation)',
    );
  });

  it('says the estimate is for quantum models only when the worker finds no circuit', async () => {
    fakeApi({
      [ROUTE]: () => ({
        status: 400,
        body: { success: false, detail: 'the Classical model runs no quantum circuit' },
      }),
    });
    render(panel(example.appData));
    expect(await screen.findByText(ESTIMATE_QUANTUM_ONLY, undefined, { timeout: 2000 })).toBeTruthy();
  });

  it('puts any other refusal in words', async () => {
    fakeApi({
      [ROUTE]: () => ({
        status: 502,
        body: { success: false, detail: 'The estimate took longer than 60 s and was stopped' },
      }),
    });
    render(panel(example.appData));
    const alert = await screen.findByRole('alert', undefined, { timeout: 2000 });
    expect(alert.textContent).toBe(`${ESTIMATE_REFUSED} The estimate took longer than 60 s and was stopped`);
  });

  it('asks nothing while the form makes no valid job body', async () => {
    const calls = fakeApi({ [ROUTE]: () => ({ body: estimate(4) }) });
    render(panel({ ...example.appData, model_configurations: {} }));
    expect(screen.getByText(ESTIMATE_INCOMPLETE)).toBeTruthy();
    await new Promise((r) => setTimeout(r, ESTIMATE_DEBOUNCE_MS + 200));
    expect(calls).toHaveLength(0);
  });
});

describe('formatDuration', () => {
  it('words seconds, minutes and hours', () => {
    expect(formatDuration(0.2)).toBe('under 1 s');
    expect(formatDuration(4.26)).toBe('4.3 s');
    expect(formatDuration(185)).toBe('3 min');
    expect(formatDuration(7500)).toBe('2 h 5 min');
  });
});
