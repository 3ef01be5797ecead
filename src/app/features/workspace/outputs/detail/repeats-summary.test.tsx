// @vitest-environment jsdom
// A repeated run's detail: each metric's mean ± sd and interval beside the baseline's, and the loss
// curves drawn with their ± sd band (the band's edges are the mean plus and minus the sd per epoch).

import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { cleanBrowserAfterEach } from '../../../../test-support/page-test';
import { RepeatsSummary, type RepeatsBlock } from './repeats-summary';

cleanBrowserAfterEach();

const stat = (mean: number, sd: number, half: number) => ({
  n: 3,
  mean,
  sd,
  ci_low: mean - half,
  ci_high: mean + half,
});

const repeats: RepeatsBlock = {
  count: 3,
  seeds: [42, 43, 44],
  confidence: 0.95,
  metrics: { rmse: stat(0.3, 0.02, 0.0497) },
  baseline: { name: 'persistence', metrics: { rmse: stat(0.28, 0, 0) } },
  losses: {
    train: { mean: [1, 0.5, 0.25], sd: [0.1, 0.05, 0.05] },
    test: { mean: [1.2, 0.8, 0.6], sd: [0.2, 0.1, 0.1] },
  },
};

const detail = (block: RepeatsBlock | null) => ({
  output_data: {
    result_type: 'Training' as const,
    training_history: null,
    ...(block ? { repeats: block } : {}),
  },
});

/** An SVG points attribute as [x, y] pairs. */
const pointsOf = (element: Element) =>
  element
    .getAttribute('points')!
    .split(' ')
    .map((p) => p.split(',').map(Number) as [number, number]);

describe('RepeatsSummary', () => {
  it('shows mean ± sd, the interval and the baseline over the seeds', () => {
    render(<RepeatsSummary detail={detail(repeats)} />);
    const summary = screen.getByTestId('repeats-summary');
    expect(within(summary).getByText('Repeated over 3 seeds (42 to 44)')).toBeTruthy();
    const row = summary.querySelector('tr[data-metric="rmse"]')!;
    expect(row.textContent).toContain('0.3 ± 0.02');
    expect(row.textContent).toContain('0.2503 to 0.3497');
    expect(row.textContent).toContain('0.28 ± 0');
    expect(within(summary).getByText('95% interval')).toBeTruthy();
  });

  it('draws each loss curve with a band whose edges are the mean ± sd', () => {
    render(<RepeatsSummary detail={detail(repeats)} />);
    const bands = screen.getAllByTestId('loss-band');
    const means = screen.getAllByTestId('loss-mean');
    expect(bands).toHaveLength(2);
    expect(means).toHaveLength(2);
    for (const [index, band] of bands.entries()) {
      const polygon = pointsOf(band);
      const line = pointsOf(means[index]!);
      // upper edge over the 3 epochs, then the lower edge back
      expect(polygon).toHaveLength(6);
      for (let epoch = 0; epoch < 3; epoch++) {
        const [x, yMean] = line[epoch]!;
        const upper = polygon[epoch]!;
        const lower = polygon[5 - epoch]!;
        expect(upper[0]).toBeCloseTo(x, 6);
        expect(lower[0]).toBeCloseTo(x, 6);
        // SVG y grows downwards: the upper edge (mean + sd) is above the line, the lower below, equally
        expect(upper[1]).toBeLessThan(yMean);
        expect(lower[1]).toBeGreaterThan(yMean);
        expect(yMean - upper[1]).toBeCloseTo(lower[1] - yMean, 1);
      }
    }
    // a wider sd draws a wider band: the test loss's first epoch (sd 0.2) against training's (0.1)
    const width = (band: Element) => pointsOf(band)[5]![1] - pointsOf(band)[0]![1];
    expect(width(bands[1]!)).toBeCloseTo(2 * width(bands[0]!), 1);
  });

  it('cuts a loss band at 0 and says so', () => {
    const near = {
      ...repeats,
      losses: { train: { mean: [0.3, 0.05], sd: [0.1, 0.2] }, test: { mean: [0.4, 0.3], sd: [0.1, 0.1] } },
    };
    render(<RepeatsSummary detail={detail(near)} />);
    const chart = screen.getByTestId('repeats-loss-chart');
    expect(chart.querySelector('figcaption')!.textContent).toContain('cut at 0 (a loss cannot be negative)');
    // the y axis starts at 0, not at 0.05 - 0.2
    expect([...chart.querySelectorAll('text')].map((t) => t.textContent)).toContain('0');
    const train = pointsOf(screen.getAllByTestId('loss-band')[0]!);
    const bottom = Math.max(...train.map((p) => p[1]));
    expect(train[2]![1]).toBeCloseTo(bottom, 6); // the second epoch's lower edge sits at 0, the chart's floor
  });

  it('draws nothing for a single run', () => {
    const { container } = render(<RepeatsSummary detail={detail(null)} />);
    expect(container.innerHTML).toBe('');
  });
});
