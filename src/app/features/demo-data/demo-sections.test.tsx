// @vitest-environment jsdom
// The landing's demo sections against a stand-in API: 'No plots available for {app}.' when the server
// has no run of the example (404), 'Loading plots...' while the run is queued (asked again until it
// ends), the failed run's reason, and a Completed run: the tabs (Confusion Matrix by default, Training
// Data first for fraud and portfolio), the spec's empty texts and the analysis engine's report in
// both registers. jsdom has no Cache API: the plain-fetch path.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test-support/fake-api';
import { PerformanceComparison } from './performance-comparison';
import { ResultInterpretation } from './result-interpretation';
import { PENDING_POLL_MS } from './use-demo-compare';

afterEach(() => {
  cleanup();
  sessionStorage.clear();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const examples = {
  success: true,
  data: [
    { problem_id: 'brain-tumor', problem_name: 'Brain Tumor or Cancer Detection' },
    { problem_id: 'fraud-detection', problem_name: 'Fraud Detection' },
  ],
};
const NO_RUN = { success: false, detail: 'No example run of this problem' };
const run = (overrides: Record<string, unknown>) => ({
  success: true,
  data: {
    application: { id: 3, app_name: 'Brain Tumor Example', problem_id: 'brain-tumor' },
    outputs: [
      {
        id: 186,
        name: 'Brain Tumor Example #186',
        status: 'Completed',
        error: null,
        created_at: null,
        completed_at: null,
        model_type: 'Classical',
        model: 'densenet121',
        metrics: { accuracy: 0.9 },
        training_data: { train_rows: 80, split: 'stratified' },
        losses: null,
        confusion_matrix: [
          [90, 3],
          [7, 40],
        ],
        interpretation: {
          technical: '# Analysis\n\n## Metrics\n- **Accuracy** 0.9 against the majority class 0.46.',
          non_technical: '# Analysis\n\nThe model got 90 of every 100 scans right.',
        },
        ...overrides,
      },
    ],
  },
});

const renderBoth = () =>
  render(
    <>
      <PerformanceComparison />
      <ResultInterpretation />
    </>,
  );

describe('landing demo sections', () => {
  it("say 'No plots available for {app}.' when the server has no run of the example", async () => {
    const calls = fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/brain-tumor/compare': () => ({ status: 404, body: NO_RUN }),
    });
    renderBoth();
    expect(screen.getAllByText('Loading plots...').length).toBeGreaterThan(0);
    const notices = await screen.findAllByTestId('demo-notice');
    expect(notices.map((n) => n.textContent)).toEqual([
      'No plots available for Brain Tumor or Cancer Detection.',
      'No plots available for Brain Tumor or Cancer Detection.',
    ]);
    expect(screen.getByRole('tab', { name: 'Confusion Matrix' }).getAttribute('aria-selected')).toBe('true');
    expect(calls.filter((c) => c.path === '/api/examples')).toHaveLength(1);
  });

  it("show 'Loading plots...' while the run is queued and its results once it completed", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answer = run({ status: 'queued', metrics: null, confusion_matrix: null, interpretation: null });
    const calls = fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/brain-tumor/compare': () => ({ body: answer }),
    });
    renderBoth();
    expect(
      (
        await screen.findAllByText(
          'The Brain Tumor or Cancer Detection example is waiting to run on this server.',
        )
      ).length,
    ).toBe(2);
    expect(screen.getAllByText('Loading plots...').length).toBe(2);
    answer = run({});
    await act(async () => {
      await vi.advanceTimersByTimeAsync(PENDING_POLL_MS + 100);
    });
    const heatmap = await screen.findByRole('table', {
      name: 'Classical model (output 186): confusion matrix',
    });
    expect(heatmap.querySelector('.heat-high')!.textContent).toBe('90');
    expect(calls.filter((c) => c.path.includes('demo-data')).length).toBeGreaterThanOrEqual(4);
    // No more requests once the run has ended.
    const asked = calls.length;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3 * PENDING_POLL_MS);
    });
    expect(calls.length).toBe(asked);
  });

  it('head the confusion matrix with the class names the run gives, with numbers when it gives none', async () => {
    const headers = async (overrides: Record<string, unknown>) => {
      fakeApi({
        'GET /api/examples': () => ({ body: examples }),
        'GET /api/demo-data/brain-tumor/compare': () => ({ body: run(overrides) }),
      });
      const { unmount } = render(<PerformanceComparison />);
      const table = await screen.findByRole('table', {
        name: 'Classical model (output 186): confusion matrix',
      });
      const columns = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
      const rows = [...table.querySelectorAll('tbody th')].map((th) => th.textContent);
      unmount();
      return { columns, rows };
    };
    expect(await headers({ confusion_labels: ['negative', 'positive'] })).toEqual({
      columns: ['True \\ Predicted', 'negative', 'positive'],
      rows: ['negative', 'positive'],
    });
    expect(await headers({})).toEqual({ columns: ['True \\ Predicted', '0', '1'], rows: ['0', '1'] });
    // Names that do not fit the matrix are not guessed at.
    expect(await headers({ confusion_labels: ['negative'] })).toEqual({
      columns: ['True \\ Predicted', '0', '1'],
      rows: ['0', '1'],
    });
  });

  it("show a failed run's reason in each section", async () => {
    fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/brain-tumor/compare': () => ({
        body: run({ status: 'Failed', error: 'Worker ran out of memory', interpretation: null }),
      }),
    });
    renderBoth();
    const alerts = await screen.findAllByRole('alert');
    expect(alerts.map((a) => a.textContent)).toEqual([
      'The Brain Tumor or Cancer Detection example run ended Failed: Worker ran out of memory',
      'The Brain Tumor or Cancer Detection example run ended Failed: Worker ran out of memory',
    ]);
  });

  it('show a Completed run: tabs, the empty texts and both registers of the report', async () => {
    fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/brain-tumor/compare': () => ({ body: run({}) }),
      'GET /api/demo-data/fraud-detection/compare': () => ({ body: run({ id: 349 }) }),
    });
    renderBoth();
    await screen.findByRole('table', { name: 'Classical model (output 186): confusion matrix' });
    fireEvent.click(screen.getByRole('tab', { name: 'Training and Test Losses' }));
    expect(screen.getByText('No Training History')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Training Data' }));
    const facts = screen.getByRole('table', { name: 'Classical model (output 186): training data' });
    expect(facts.textContent).toContain('train rows80');
    expect(screen.getByText('The model got 90 of every 100 scans right.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Technical' }));
    expect(screen.getByText('Accuracy').tagName).toBe('STRONG');
    expect(screen.getByRole('heading', { name: 'Metrics' })).toBeTruthy();
    // Fraud opens on the first tab (spec: plot tabs default to the first for portfolio and fraud).
    fireEvent.change(screen.getByLabelText('Example application', { selector: '#comparison-problem' }), {
      target: { value: 'fraud-detection' },
    });
    await screen.findByRole('table', { name: 'Classical model (output 349): training data' });
    expect(screen.getByRole('tab', { name: 'Training Data' }).getAttribute('aria-selected')).toBe('true');
  });

  it("keep each section's picked example when drawn again (a reload, coming back to the page)", async () => {
    fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/brain-tumor/compare': () => ({ body: run({}) }),
      'GET /api/demo-data/fraud-detection/compare': () => ({ body: run({ id: 349 }) }),
    });
    const interpretationPicker = () =>
      screen.getByLabelText('Example application', {
        selector: '#interpretation-problem',
      }) as HTMLSelectElement;
    const comparisonPicker = () =>
      screen.getByLabelText('Example application', { selector: '#comparison-problem' }) as HTMLSelectElement;
    renderBoth();
    await screen.findByRole('table', { name: 'Classical model (output 186): confusion matrix' });
    fireEvent.change(interpretationPicker(), { target: { value: 'fraud-detection' } });
    await screen.findByRole('heading', { name: 'Classical model (output 349)' });
    cleanup();

    renderBoth();
    await screen.findByRole('heading', { name: 'Classical model (output 349)' });
    expect(interpretationPicker().value).toBe('fraud-detection');
    expect(comparisonPicker().value).toBe('brain-tumor');
  });
});
