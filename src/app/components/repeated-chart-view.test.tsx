// @vitest-environment jsdom
// A brain tumor training repeated over 2 seeds in the Chart view the output detail and the printable
// Analyze overlay share (TrainingChartsView): its accuracy history drawn with a band, its confusion
// matrix summed with each seed's on demand.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChartSpec } from '../../generated/worker-contract';
import { TrainingChartsView } from '../features/workspace/outputs/overlays/report-parts';
import type { RepeatsCurves } from './chart-bands';

vi.mock('react-apexcharts', () => ({
  default: (props: { type: string; series: { name?: string; type?: string; data: unknown[] }[] }) => (
    <div data-testid="apex" data-type={props.type} data-series={JSON.stringify(props.series)} />
  ),
}));
afterEach(cleanup);

const charts: ChartSpec[] = [
  {
    type: 'line',
    title: 'Accuracy vs Validation Accuracy',
    label: 'accuracy',
    series: [
      { name: 'Accuracy', data: [0.5, 0.75] },
      { name: 'Validation accuracy', data: [0.4, 0.4] },
    ],
    categories: [1, 2],
  },
  {
    type: 'confusion_matrix',
    title: 'Confusion Matrix (summed over 2 seeds, 42 to 43)',
    label: 'slices',
    series: [
      { name: 'true glioma', data: [5, 1] },
      { name: 'true pituitary', data: [2, 4] },
    ],
    categories: ['glioma', 'pituitary'],
  },
];
const repeats: RepeatsCurves = {
  count: 2,
  seeds: [42, 43],
  curves: [
    {
      title: 'Accuracy vs Validation Accuracy',
      series: [
        {
          name: 'Accuracy',
          runs: [
            [0.4, 0.7],
            [0.6, 0.8],
          ],
          mean: [0.5, 0.75],
          sd: [0.1414, 0.0707],
        },
      ],
    },
  ],
  confusion_matrices: [
    {
      title: 'Confusion Matrix (summed over 2 seeds, 42 to 43)',
      runs: [
        {
          seed: 42,
          matrix: [
            [3, 0],
            [1, 2],
          ],
        },
        {
          seed: 43,
          matrix: [
            [2, 1],
            [1, 2],
          ],
        },
      ],
    },
  ],
};

const view = (withRepeats: RepeatsCurves | null) =>
  render(
    <TrainingChartsView
      charts={charts}
      history={null}
      ongoing={false}
      appName="Tumors"
      repeats={withRepeats}
    />,
  );

describe('the Chart view of a repeated training', () => {
  it('draws the accuracy history with its band and says what the band is', async () => {
    view(repeats);
    const [accuracy] = await screen.findAllByTestId('apex');
    expect(accuracy.dataset.type).toBe('rangeArea');
    const series = JSON.parse(accuracy.dataset.series!) as { name: string; type: string }[];
    expect(series.map((s) => `${s.type} ${s.name}`)).toEqual([
      'rangeArea Accuracy ± 1 sd',
      'line Accuracy',
      'line Validation accuracy',
    ]);
    expect(screen.getByTestId('chart-band-caption').textContent).toContain('Mean over 2 seeds');
  });

  it("shows the summed confusion matrix first, then one seed's when chosen", async () => {
    view(repeats);
    const select = screen.getByRole('combobox');
    expect(screen.getByText('Confusion Matrix (summed over 2 seeds, 42 to 43)')).toBeTruthy();
    expect([...select.querySelectorAll('option')].map((o) => o.textContent)).toEqual([
      'All 2 seeds (summed)',
      'Seed 42',
      'Seed 43',
    ]);
    fireEvent.change(select, { target: { value: '42' } });
    expect(screen.getByText('Confusion Matrix (seed 42)')).toBeTruthy();
    const charts = await screen.findAllByTestId('apex');
    const heatmap = charts.find((c) => c.dataset.type === 'heatmap')!;
    const rows = JSON.parse(heatmap.dataset.series!) as { name: string; data: { y: number }[] }[];
    // ApexCharts draws the first series at the bottom: the matrix's rows come reversed.
    expect(rows.map((r) => [r.name, r.data.map((c) => c.y)])).toEqual([
      ['true pituitary', [1, 2]],
      ['true glioma', [3, 0]],
    ]);
  });

  it('draws a single run as before: no band, no selector', async () => {
    view(null);
    const [accuracy] = await screen.findAllByTestId('apex');
    expect(accuracy.dataset.type).toBe('line');
    expect(screen.queryByTestId('chart-band-caption')).toBeNull();
    expect(screen.queryByRole('combobox')).toBeNull();
  });
});
