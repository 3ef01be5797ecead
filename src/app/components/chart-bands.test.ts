import { describe, expect, it } from 'vitest';
import type { ChartSpec } from '../../generated/worker-contract';
import {
  bandCaption,
  bandsFor,
  naturalRange,
  seedMatricesFor,
  seedMatrixSpec,
  type RepeatsCurves,
} from './chart-bands';
import { apexConfig } from './chart-spec-view';

// A brain tumor training repeated over 3 seeds, as the worker records it (result.repeats): the
// accuracy chart holds the per-epoch means of the banded series, repeats.curves each seed's series.
const accuracy: ChartSpec = {
  type: 'line',
  title: 'Accuracy vs Validation Accuracy',
  label: 'accuracy',
  series: [
    { name: 'Accuracy', data: [0.5, 0.6, 0.7] },
    { name: 'Validation accuracy', data: [0.4, 0.45, 0.5] },
  ],
  categories: [1, 2, 3],
};
const repeats: RepeatsCurves = {
  count: 3,
  seeds: [42, 43, 44],
  curves: [
    {
      title: 'Accuracy vs Validation Accuracy',
      series: [
        {
          name: 'Accuracy',
          runs: [
            [0.4, 0.6, 0.7],
            [0.5, 0.6, 0.8],
            [0.6, 0.6, 0.6],
          ],
          mean: [0.5, 0.6, 0.7],
          sd: [0.1, 0, 0.1],
        },
      ],
    },
    {
      title: 'Actual vs predicted Close (test part)',
      series: [{ name: 'predicted', runs: [], mean: [10, 12], sd: [1, 2] }],
    },
  ],
  confusion_matrices: [
    {
      title: 'Confusion Matrix (summed over 3 seeds, 42 to 44)',
      runs: [
        {
          seed: 42,
          matrix: [
            [2, 1],
            [0, 3],
          ],
        },
        {
          seed: 43,
          matrix: [
            [3, 0],
            [1, 2],
          ],
        },
        {
          seed: 44,
          matrix: [
            [1, 2],
            [2, 1],
          ],
        },
      ],
    },
  ],
};

describe('bands of a repeated run', () => {
  it("finds the chart's recorded curve by title and spans mean ± sd at each point", () => {
    const bands = bandsFor(accuracy, repeats)!;
    expect(bands.seeds).toBe(3);
    expect(bands.series.map((s) => s.name)).toEqual(['Accuracy']); // the other series varied by no seed
    const [low, high] = [bands.series[0].range.map((r) => r![0]), bands.series[0].range.map((r) => r![1])];
    expect(low[0]).toBeCloseTo(0.4);
    expect(high[0]).toBeCloseTo(0.6);
    expect(low[1]).toBeCloseTo(0.6);
    expect(high[2]).toBeCloseTo(0.8);
    expect(bandCaption(bands)).toMatch(/Mean over 3 seeds; shaded band: mean ± 1 sd/);
  });

  it('gives none to a single run, another chart, or a live chart of another length', () => {
    expect(bandsFor(accuracy, null)).toBeNull();
    expect(bandsFor({ ...accuracy, title: 'Loss over Epochs' }, repeats)).toBeNull();
    const live = { ...accuracy, series: [{ name: 'Accuracy', data: [0.4] }], categories: [1] };
    expect(bandsFor(live, repeats)).toBeNull();
  });

  it('draws the band before its line, in the same colour, filled and without a stroke', () => {
    const config = apexConfig(accuracy, bandsFor(accuracy, repeats));
    expect(config.type).toBe('rangeArea');
    const series = config.series as { type: string; name: string; data: { x: unknown; y: unknown }[] }[];
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ['rangeArea', 'Accuracy ± 1 sd'],
      ['line', 'Accuracy'],
      ['line', 'Validation accuracy'],
    ]);
    expect(series[0].data[2].x).toBe('3');
    expect((series[0].data[2].y as number[])[0]).toBeCloseTo(0.6);
    expect((series[0].data[2].y as number[])[1]).toBeCloseTo(0.8);
    expect(series[1].data.map((p) => p.y)).toEqual([0.5, 0.6, 0.7]);
    const colors = config.options.colors as string[];
    expect(colors[0]).toBe(colors[1]);
    expect(colors[2]).not.toBe(colors[1]);
    expect(config.options.stroke?.width).toEqual([0, 2, 2]);
    expect((config.options.fill?.opacity as number[])[0]).toBeLessThan(1);
    expect(config.options.legend?.show).toBe(true);
    // The points carry their x: the axis has no categories of its own to disagree with them.
    expect(config.options.xaxis).not.toHaveProperty('categories');
    expect(config.options.xaxis?.title?.text).toBeUndefined();
  });

  it('bands a forecast on its date axis and leaves the actual values a plain line', () => {
    const forecast: ChartSpec = {
      type: 'line',
      title: 'Actual vs predicted Close (test part)',
      label: 'Close',
      series: [
        { name: 'actual', data: [10, 11] },
        { name: 'predicted', data: [10, 12] },
      ],
      categories: ['2024-01-01', '2024-01-02'],
    };
    const config = apexConfig(forecast, bandsFor(forecast, repeats));
    const series = config.series as { type: string; name: string; data: { x: unknown; y: unknown }[] }[];
    expect(series.map((s) => s.name)).toEqual(['predicted ± 1 sd', 'actual', 'predicted']);
    expect(series[0].data).toEqual([
      { x: Date.UTC(2024, 0, 1), y: [9, 11] },
      { x: Date.UTC(2024, 0, 2), y: [10, 14] },
    ]);
    expect(config.options.xaxis?.type).toBe('datetime');
    const colors = config.options.colors as string[];
    expect(colors[0]).toBe(colors[2]); // the band is the predicted line's colour
  });

  it("cuts a band at its measure's natural range and says so in the caption", () => {
    // A brain tumor validation accuracy near 1 and a loss near 0, as three seeds recorded them.
    const valAccuracy = { name: 'Validation accuracy', runs: [], mean: [0.9, 0.95], sd: [0.05, 0.15] };
    const loss = { name: 'Training loss', runs: [], mean: [0.3, 0.05], sd: [0.1, 0.2] };
    const near: RepeatsCurves = {
      count: 3,
      seeds: [42, 43, 44],
      curves: [
        { title: accuracy.title, series: [valAccuracy] },
        { title: 'Loss over Epochs', series: [loss] },
      ],
    };
    expect(bandsFor(accuracy, near)).toBeNull(); // three epochs drawn, two recorded
    const two = (spec: ChartSpec): ChartSpec => ({
      ...spec,
      series: spec.series.map((s) => ({ ...s, data: s.data.slice(0, 2) })),
      categories: [1, 2],
    });
    const accBands = bandsFor(two(accuracy), near)!;
    const [first, second] = accBands.series[0].range;
    expect(first![0]).toBeCloseTo(0.85);
    expect(first![1]).toBeCloseTo(0.95);
    expect(second![0]).toBeCloseTo(0.8);
    expect(second![1]).toBe(1); // 1.1 before
    expect(bandCaption(accBands)).toMatch(/cut at the bounds of the measure: Validation accuracy at 0 and 1/);
    const lossChart: ChartSpec = {
      type: 'line',
      title: 'Loss over Epochs',
      label: 'loss',
      series: [{ name: 'Training loss', data: [0.3, 0.05] }],
      categories: [1, 2],
    };
    const lossBands = bandsFor(lossChart, near)!;
    expect(lossBands.series[0].range[1]![0]).toBe(0); // -0.15 before
    expect(lossBands.series[0].range[1]![1]).toBeCloseTo(0.25);
    expect(bandCaption(lossBands)).toMatch(/Training loss at 0 \(it cannot be negative\)/);
    // a band within its range is not cut, and its caption says nothing of bounds
    expect(bandCaption(bandsFor(accuracy, repeats)!)).not.toMatch(/cut/);
  });

  it('reads the range from the chart label and series name, not from the problem', () => {
    expect(naturalRange('accuracy', 'Validation accuracy')).toEqual([0, 1]);
    expect(naturalRange('true positive rate', 'model')).toEqual([0, 1]);
    expect(naturalRange('precision', 'baseline')).toEqual([0, 1]);
    expect(naturalRange('accuracy (%)', 'Accuracy')).toEqual([0, 100]);
    expect(naturalRange('MSE (normalized)', 'test')).toEqual([0, null]);
    expect(naturalRange('class-weighted cross-entropy', 'training')).toEqual([0, null]);
    expect(naturalRange('RMSE', 'model')).toEqual([0, null]);
    expect(naturalRange('energy', 'energy')).toBeNull();
    expect(naturalRange('Close', 'predicted')).toBeNull();
    expect(naturalRange('objective', 'objective')).toBeNull();
    expect(naturalRange('error (signed)', 'residual')).toBeNull();
  });

  it('draws a chart without bands as before', () => {
    const plain = apexConfig(accuracy);
    const unbanded = apexConfig(accuracy, null);
    expect(unbanded.type).toBe('line');
    expect(unbanded.series).toEqual(plain.series);
    expect(JSON.stringify(unbanded.options)).toBe(JSON.stringify(plain.options)); // formatters aside
  });
});

describe('confusion matrices of a repeated run', () => {
  const summed: ChartSpec = {
    type: 'confusion_matrix',
    title: 'Confusion Matrix (summed over 3 seeds, 42 to 44)',
    label: 'slices',
    series: [
      { name: 'true a', data: [6, 3] },
      { name: 'true b', data: [3, 6] },
    ],
    categories: ['a', 'b'],
  };

  it("offers each seed's matrix under the summed chart's classes", () => {
    const perSeed = seedMatricesFor(summed, repeats)!;
    expect(perSeed.seeds).toEqual([42, 43, 44]);
    const one = seedMatrixSpec(summed, 43, perSeed.matrices[1]);
    expect(one.title).toBe('Confusion Matrix (seed 43)');
    expect(one.series).toEqual([
      { name: 'true a', data: [3, 0] },
      { name: 'true b', data: [1, 2] },
    ]);
    expect(one.categories).toEqual(['a', 'b']);
    expect(seedMatricesFor({ ...summed, title: 'Confusion Matrix' }, repeats)).toBeNull();
  });
});
