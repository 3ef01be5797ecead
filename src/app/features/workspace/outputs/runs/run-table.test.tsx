// @vitest-environment jsdom
// The run table: 200 runs from the run table call (faked at the fetch boundary), sorted by a metric
// or a setting, filtered by a metric ('rmse < 0.3') or searched, any number selected to overlay their
// curves, one metric plotted against a setting. Prints the time to render 200 runs (jsdom).

import { fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../../../../test-support/page-test';
import { RunTable } from './run-table';
import { filterRuns, parseMetricFilter, sortRuns } from './run-table-rules';
import type { RunTableData } from './runs-api';

vi.mock('react-apexcharts', () => ({
  default: (props: {
    type: string;
    series: { name: string }[];
    options: { xaxis?: { categories?: unknown[] } };
  }) => <div data-testid="apex" data-series={props.series.map((s) => s.name).join('|')} />,
}));

beforeEach(storeToken);
cleanBrowserAfterEach();

/** 200 runs: learning rate and epochs vary, rmse falls with epochs. */
function table(count = 200): RunTableData {
  const runs = Array.from({ length: count }, (_, i) => {
    const id = count - i;
    const epochs = 5 + (id % 10) * 5;
    return {
      id,
      name: `Stocks #${id}`,
      status: id % 25 === 0 ? 'Failed' : 'Completed',
      created_at: '2026-03-03T10:00:00.000Z',
      execution_time: 10,
      model: id % 2 ? 'LSTM' : 'GRU',
      metrics: (id % 25 === 0 ? {} : { rmse: 1 / epochs + id / 10000, mae: 0.5 / epochs }) as Record<
        string,
        number
      >,
      baseline: { rmse: 0.28, mae: 0.22 },
      settings: {
        'model_configurations.epochs': epochs,
        'model_configurations.learning_rate': id % 3 ? 0.01 : 0.001,
        'preprocess.train_test_split': 0.6,
      },
      history: { train_loss: [0.3, 0.2, 0.1], test_loss: [0.4, 0.3, 0.2 + id / 1000] },
      // run 12 was repeated over 3 seeds: its history is the mean, this the sd beside it
      spread:
        id === 12
          ? { seeds: 3, sd: { train_loss: [0.01, 0.01, 0.01], test_loss: [0.05, 0.35, 0.05] } }
          : null,
    };
  });
  return {
    runs,
    metrics: [
      { name: 'rmse', label: 'RMSE', better: 'lower' },
      { name: 'mae', label: 'MAE', better: 'lower' },
    ],
    settings: [
      'model_configurations.epochs',
      'model_configurations.learning_rate',
      'preprocess.train_test_split',
    ],
  };
}

const rowIds = () =>
  [...screen.getByTestId('runs').querySelectorAll('tbody tr')].map((tr) =>
    Number(tr.getAttribute('data-run-id')),
  );

describe('run table', () => {
  it('renders 200 runs with metric and differing setting columns; sorts, filters by a metric, searches', async () => {
    fakeApi({ 'GET /api/application-outputs/5/runs': () => ({ body: { success: true, data: table() } }) });
    const started = performance.now();
    render(<RunTable applicationId={5} onClose={vi.fn()} />);
    await screen.findByTestId('runs');
    console.log(`run table: 200 runs rendered in ${(performance.now() - started).toFixed(0)} ms (jsdom)`);
    expect(rowIds()).toHaveLength(200);
    expect(rowIds()[0]).toBe(200);
    const headers = [...screen.getByTestId('runs').querySelectorAll('thead th')].map((th) => th.textContent);
    // the split is the same in every run: not a column
    expect(headers).toEqual(['Select', 'Run', 'Status', 'Model', 'RMSE', 'MAE', 'epochs', 'learning rate']);

    fireEvent.click(screen.getByRole('button', { name: 'RMSE' }));
    const byRmse = rowIds();
    const rmse = (id: number) => table().runs.find((r) => r.id === id)!.metrics.rmse;
    expect(rmse(byRmse[0]!)).toBeLessThanOrEqual(rmse(byRmse[1]!)!);
    expect(byRmse.slice(-8).every((id) => id % 25 === 0)).toBe(true); // runs without the metric last
    fireEvent.click(screen.getByRole('button', { name: 'RMSE' }));
    expect(screen.getByRole('columnheader', { name: 'RMSE' }).getAttribute('aria-sort')).toBe('descending');

    const search = screen.getByRole('searchbox', { name: 'Search or filter runs' });
    fireEvent.change(search, { target: { value: 'rmse < 0.03' } });
    expect(rowIds().length).toBeGreaterThan(0);
    expect(rowIds().every((id) => rmse(id)! < 0.03)).toBe(true);
    expect(screen.getByTestId('run-count').textContent).toMatch(/^\d+ of 200 runs with rmse < 0.03/);
    fireEvent.change(search, { target: { value: 'GRU' } });
    expect(rowIds()).toHaveLength(100);
  });

  it('overlays the curves of any number of selected runs and plots a metric against a setting', async () => {
    fakeApi({ 'GET /api/application-outputs/5/runs': () => ({ body: { success: true, data: table(20) } }) });
    render(<RunTable applicationId={5} onClose={vi.fn()} />);
    await screen.findByTestId('runs');
    for (const id of [3, 7, 11, 12])
      fireEvent.click(screen.getByRole('checkbox', { name: `Select run ${id}` }));
    const charts = screen.getAllByTestId('apex');
    // the repeated run #12 is drawn as its mean with a band, cut at 0 (a loss: 0.3 - 0.35 < 0)
    expect(charts[0]!.getAttribute('data-series')).toBe('#12 GRU ± 1 sd|#12 GRU|#11 LSTM|#7 LSTM|#3 LSTM');
    const caption = screen.getByTestId('chart-band-caption').textContent!;
    expect(caption).toMatch(/Repeated runs drawn as their mean \(#12 GRU over 3 seeds\)/);
    expect(caption).toMatch(/#12 GRU at 0 \(it cannot be negative\)/);
    expect(charts[1]!.getAttribute('data-series')).toBe('RMSE');
    expect(within(screen.getByTestId('run-table')).getByText(/4 selected/)).toBeTruthy();
  });

  it('rules: a filter needs a known metric; sorting keeps runs without a value last', () => {
    expect(parseMetricFilter('rmse<=0.3', ['rmse'])).toEqual({ metric: 'rmse', op: '<=', value: 0.3 });
    expect(parseMetricFilter('speed < 3', ['rmse'])).toBeNull();
    const runs = table(30).runs;
    expect(filterRuns(runs, 'Stocks #2', ['rmse']).map((r) => r.id)).toEqual([
      29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 2,
    ]);
    const sorted = sortRuns(runs, { kind: 'metric', key: 'rmse' }, 'descending');
    expect(sorted.at(-1)!.id % 25).toBe(0);
  });
});
