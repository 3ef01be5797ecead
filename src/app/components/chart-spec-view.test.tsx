// Spec section 9's chart rules, checked on the ApexCharts configuration each chart spec becomes:
// the four chart types, heatmap colour ranges in thirds of the maximum, loss axes with 4 decimals and
// about one x tick per n/20 points.
import { describe, expect, it } from 'vitest';
import type { ChartSpec } from '../../generated/worker-contract';
import {
  apexConfig,
  dateCategories,
  heatRanges,
  isLossChart,
  numericTickFormatter,
  xAxisTitle,
  xTickAmount,
} from './chart-spec-view';

const line = (over: Partial<ChartSpec> = {}): ChartSpec => ({
  type: 'line',
  title: 'Predicted and actual',
  label: 'price',
  series: [{ name: 'actual', data: [120.5, 121.25] }],
  categories: ['2024-01-01', '2024-01-02'],
  ...over,
});
type Formatter = (value: number) => string;
const yFormatter = (spec: ChartSpec): Formatter => {
  const yaxis = apexConfig(spec).options.yaxis as { labels: { formatter: Formatter } };
  return yaxis.labels.formatter;
};

describe('y axis numbers (seen on the quantum outputs)', () => {
  it('gives every tick the decimals of the axis scale, never -0.0000, and whole data no trailing zeros', () => {
    // Test error bars up to 9,632: the zero tick read '0.0000' beside '2000'.
    const bars = line({ type: 'bar', label: 'error', series: [{ name: 'rmse', data: [9631.92, 2881.3] }] });
    expect([0, 2000, 8000].map(yFormatter(bars))).toEqual(['0', '2000', '8000']);
    // A VQE convergence axis crossing zero: a tick a hair below 0 read '-0.0000'.
    const energy = line({ label: 'energy', series: [{ name: 'energy', data: [0.2, -0.24] }] });
    expect(yFormatter(energy)(-1e-17)).toBe('0.0000');
    expect(yFormatter(energy)(-0.1)).toBe('-0.1000');
    // Selected stocks (0 or 1): '0.2', '1', not '0.2000', '1.0000'.
    const selected = line({
      type: 'bar',
      label: 'selected (1) or not (0)',
      series: [{ name: 's', data: [1, 0, 1] }],
    });
    expect([0, 0.2, 1].map(yFormatter(selected))).toEqual(['0', '0.2', '1']);
    // Loss axes keep their 4 decimals, without the minus of a zero.
    expect(
      yFormatter(line({ title: 'Training loss', series: [{ name: 'loss', data: [0.5, 0.25] }] }))(-0),
    ).toBe('0.0000');
  });
});

describe('x axis titles (the quantum outputs drew none)', () => {
  it('names the x axis of ROC and precision-recall curves, per-epoch/per-evaluation charts and dates', () => {
    const pairs = (title: string) =>
      line({
        title,
        categories: [],
        series: [
          {
            name: 'm',
            data: [
              [0, 0],
              [1, 1],
            ],
          },
        ],
      });
    expect(xAxisTitle(pairs('ROC curve (test part)'))).toBe('False positive rate');
    expect(xAxisTitle(pairs('Precision-recall curve (test part)'))).toBe('Recall');
    expect(xAxisTitle(line({ title: 'Training and test loss per epoch', categories: [1, 2] }))).toBe('Epoch');
    expect(xAxisTitle(line({ title: 'VQE convergence: energy per evaluation', categories: [1, 2] }))).toBe(
      'Evaluation',
    );
    expect(xAxisTitle(line({ title: 'Actual vs predicted Close (test part)' }))).toBe('Date');
    // Nothing says what the x axis is: no title is made up.
    expect(xAxisTitle(line({ title: 'Selected stocks', categories: ['AAPL', 'NVDA'] }))).toBeUndefined();
    const roc = apexConfig(pairs('ROC curve (test part)')).options.xaxis as { title: { text?: string } };
    expect(roc.title.text).toBe('False positive rate');
  });
});

describe('chart types', () => {
  it('maps line, bar, heatmap and confusion_matrix onto ApexCharts line, bar and heatmap', () => {
    expect(apexConfig(line()).type).toBe('line');
    expect(apexConfig(line({ type: 'bar' })).type).toBe('bar');
    expect(apexConfig(line({ type: 'heatmap', series: [{ name: 'r', data: [1, 2] }] })).type).toBe('heatmap');
    expect(apexConfig(line({ type: 'confusion_matrix', series: [{ name: 'r', data: [1, 2] }] })).type).toBe(
      'heatmap',
    );
  });

  it('leaves a lone bar series unnamed (ApexCharts 7.9.1 draws no bars for a named one)', () => {
    const one = apexConfig(line({ type: 'bar' }));
    expect(one.series).toEqual([{ data: [120.5, 121.25] }]);
    const two = apexConfig(
      line({
        type: 'bar',
        series: [
          { name: 'a', data: [1] },
          { name: 'b', data: [2] },
        ],
      }),
    );
    expect(two.series.map((s) => s.name)).toEqual(['a', 'b']);
    expect(two.options.plotOptions?.bar?.columnWidth).toBe('55%');
    expect(two.options.stroke).toBeUndefined();
  });
});

describe('heatmap colour ranges', () => {
  it('splits the scale in thirds of the largest value', () => {
    expect(heatRanges([3, 12, 6]).map((r) => [r.from, r.to])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
    ]);
    expect(heatRanges([0, 0])).toEqual([]);
  });

  it('gives a heatmap chart those ranges as its colour scale', () => {
    const config = apexConfig({
      type: 'heatmap',
      title: 'Correlation',
      label: '',
      series: [
        { name: 'a', data: [0.3, 0.9] },
        { name: 'b', data: [0.6, 0.1] },
      ],
      categories: ['a', 'b'],
    });
    const ranges = config.options.plotOptions?.heatmap?.colorScale?.ranges ?? [];
    expect(ranges.map((r) => [r.from, Number(r.to?.toFixed(2))])).toEqual([
      [0, 0.3],
      [0.3, 0.6],
      [0.6, 0.9],
    ]);
  });
});

describe('axes', () => {
  it('shows 4 decimals on a loss axis, even for large losses', () => {
    const loss = line({ title: 'Training and test loss per epoch', label: 'MSE' });
    expect(isLossChart(loss)).toBe(true);
    expect(yFormatter(loss)(12.5)).toBe('12.5000');
    expect(yFormatter(loss)(0.123456)).toBe('0.1235');
  });

  it('keeps fewer decimals for large values on other axes', () => {
    expect(isLossChart(line())).toBe(false);
    expect(yFormatter(line())(120.5)).toBe('120.50');
    expect(yFormatter(line())(1500)).toBe('1500');
  });

  it('draws about one x tick per n/20 points on long axes and every category on short ones', () => {
    expect(xTickAmount(10)).toBeUndefined();
    expect(xTickAmount(400)).toBe(20);
    const long = Array.from({ length: 400 }, (_, i) => i + 1);
    const config = apexConfig(line({ categories: long, series: [{ name: 's', data: long }] }));
    expect(config.options.xaxis?.tickAmount).toBe(20);
  });
});

describe('dates on the x axis (the demand forecasts read as overlapping labels)', () => {
  it('puts a line of ISO dates on a datetime axis that places its own unrotated ticks', () => {
    const days = Array.from({ length: 120 }, (_, i) =>
      new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10),
    );
    const config = apexConfig(
      line({ categories: days, series: [{ name: 'actual', data: days.map((_, i) => i) }] }),
    );
    const xaxis = config.options.xaxis!;
    expect(xaxis.type).toBe('datetime');
    expect(xaxis.categories).toBeUndefined();
    expect(xaxis.labels?.rotate).toBe(0);
    expect(xaxis.labels?.datetimeUTC).toBe(true);
    expect(xaxis.title?.text).toBe('Date');
    const first = config.series[0].data[0] as [number, number];
    expect(first).toEqual([Date.UTC(2024, 0, 1), 0]);
    expect((config.series[0].data[119] as [number, number])[0]).toBe(Date.UTC(2024, 3, 29));
    expect(config.options.tooltip?.x?.format).toBe('yyyy-MM-dd');
  });

  it('reads dates with a time as UTC, and leaves other categories and bar charts on categories', () => {
    expect(dateCategories(['2024-01-01 10:30', '2024-01-01T11:00:00Z'])).toEqual([
      Date.UTC(2024, 0, 1, 10, 30),
      Date.UTC(2024, 0, 1, 11),
    ]);
    expect(dateCategories(['2024-01-01', 'later'])).toBeNull();
    expect(dateCategories([1, 2])).toBeNull();
    expect(apexConfig(line({ categories: ['AAPL', 'NVDA'] })).options.xaxis?.type).toBe('category');
    const bars = apexConfig(line({ type: 'bar' })).options.xaxis!;
    expect(bars.type).toBe('category');
    expect(bars.categories).toEqual(['2024-01-01', '2024-01-02']);
  });

  it('rotates long category axes always, so their labels do not run into each other', () => {
    const many = Array.from({ length: 40 }, (_, i) => `store ${i}`);
    const long = apexConfig(
      line({ type: 'bar', categories: many, series: [{ name: 's', data: many.map(() => 1) }] }),
    );
    expect(long.options.xaxis?.labels?.rotateAlways).toBe(true);
    expect(long.options.xaxis?.labels?.rotate).toBe(-45);
    expect(apexConfig(line({ type: 'bar' })).options.xaxis?.labels?.rotateAlways).toBe(false);
  });
});

describe('numeric x ticks (the route map read 13.39, 13.39, 13.40 at 2 decimals)', () => {
  /** The labels ApexCharts asks for: `ticks` equal steps from the smallest x to the largest. */
  const tickLabels = (format: (v: number) => string, min: number, max: number, ticks = 5) =>
    Array.from({ length: ticks + 1 }, (_, k) => format(min + ((max - min) * k) / ticks));

  it("labels a route map's longitudes over 0.04 degrees with distinct ticks", () => {
    // A depot and stops a few streets apart (the delivery sample spans 0.017 degrees of longitude).
    const routes: ChartSpec = {
      type: 'line',
      title: 'QAOA routes (longitude, latitude)',
      label: 'latitude',
      series: [
        {
          name: 'vehicle 1',
          data: [
            [13.3812, 52.5163],
            [13.4021, 52.5201],
            [13.3812, 52.5163],
          ],
        },
        {
          name: 'vehicle 2',
          data: [
            [13.3812, 52.5163],
            [13.4208, 52.5075],
            [13.3812, 52.5163],
          ],
        },
      ],
      categories: [],
    };
    const xaxis = apexConfig(routes).options.xaxis as {
      type: string;
      tickAmount: number;
      labels: { formatter: (v: string) => string };
    };
    expect(xaxis.type).toBe('numeric');
    const labels = tickLabels((v) => xaxis.labels.formatter(String(v)), 13.3812, 13.4208, xaxis.tickAmount);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(['13.381', '13.389', '13.397', '13.405', '13.413', '13.421']);
    // Two decimals (the old labels) repeat on this axis.
    const twoDecimals = tickLabels((v) => v.toFixed(2), 13.3812, 13.4208);
    expect(new Set(twoDecimals).size).toBeLessThan(twoDecimals.length);
  });

  it('chooses the decimals from the step for any range', () => {
    for (const [min, max] of [
      [0, 1],
      [0, 9600],
      [13.38, 13.42],
      [-0.0021, 0.0019],
      [52.50001, 52.50009],
    ] as const) {
      const labels = tickLabels(numericTickFormatter(min, max), min, max);
      expect(new Set(labels).size, `${min}..${max}: ${labels.join(', ')}`).toBe(labels.length);
    }
    expect(tickLabels(numericTickFormatter(0, 1), 0, 1)).toEqual(['0.0', '0.2', '0.4', '0.6', '0.8', '1.0']);
    expect(tickLabels(numericTickFormatter(0, 9600), 0, 9600)).toEqual([
      '0',
      '1920',
      '3840',
      '5760',
      '7680',
      '9600',
    ]);
    // One point (no range): two decimals, as before.
    expect(numericTickFormatter(3, 3)(3)).toBe('3.00');
  });
});
