import type { Repeats } from '../../generated/job-result';
import type { ChartSpec } from '../../generated/worker-contract';

/**
 * A run repeated over seeds draws its curves as the mean with a band: every chart whose series the
 * worker recorded per seed (result.repeats.curves, matched by the chart's title) gets, for each such
 * series, the band mean ± one sample standard deviation at each point. One band rule everywhere (the
 * loss band of the repeats summary is the same): BAND_TEXT names it in legends and captions.
 */

export const BAND_TEXT = '± 1 sd';

export interface SeriesBand {
  /** The chart series the band belongs to. */
  name: string;
  /**
   * Per point [mean - sd, mean + sd], cut to the values the series can take (see naturalRange); null
   * where no seed reached the point.
   */
  range: ([number, number] | null)[];
  /** The series' natural range when the band reached past it and was cut there. */
  clipped?: NaturalRange;
  /** Its own seed count, on a chart overlaying runs repeated over different counts. */
  seeds?: number;
}

/** The values a measure can take: [low, high], null where unbounded. */
export type NaturalRange = [number | null, number | null];

// What a chart declares about a series: its y-axis label ('accuracy', 'loss', 'MSE (normalized)',
// 'true positive rate') and the series' name ('Validation accuracy', 'Training loss'). Shares and
// scores of a classifier lie in [0, 1]; losses and error measures are never negative. Anything else
// (an energy, an objective, a price, a signed error) is left unbounded.
const UNIT_INTERVAL =
  /\b(accuracy|precision|recall|f1|f-?measure|f-?score|auc|roc[ -]auc|true positive rate|false positive rate|probability)\b/i;
const NON_NEGATIVE =
  /\b(loss|mse|rmse|mae|mape|smape|squared error|absolute error|cross-entropy|log[ -]?loss|variance)\b/i;

/**
 * The natural range of a series from what its chart declares (label and series name, not the problem):
 * [0, 1] for accuracy, precision, recall, F1, AUC and rates ([0, 100] when the values are percentages),
 * [0, ∞) for losses and error measures (MSE, RMSE, MAE, cross-entropy); null when nothing bounds it.
 */
export function naturalRange(
  label: string,
  seriesName: string,
  values: readonly (number | null)[] = [],
): NaturalRange | null {
  const text = `${seriesName} ${label}`;
  // A signed quantity ('error (signed)', 'residual') is not an error measure.
  if (/\b(signed|residual|difference|change)\b/i.test(text)) return null;
  if (UNIT_INTERVAL.test(text)) {
    const percent = /%|percent/i.test(text) || values.some((v) => v !== null && v > 1);
    return [0, percent ? 100 : 1];
  }
  if (NON_NEGATIVE.test(text)) return [0, null];
  return null;
}

/**
 * One series' band: mean ± sd at each point, cut to `bounds` (a band of an accuracy near 1 would
 * otherwise reach 1.1, a loss near 0 below 0). Null means are gaps.
 */
export function seriesBand(
  name: string,
  mean: readonly (number | null)[],
  sd: readonly (number | null)[],
  bounds: NaturalRange | null,
): SeriesBand {
  const [low, high] = bounds ?? [null, null];
  let clipped = false;
  const range = mean.map((m, i): [number, number] | null => {
    if (m === null) return null;
    const spread = sd[i] ?? 0;
    let [a, b] = [m - spread, m + spread];
    if (low !== null && a < low) [a, clipped] = [low, true];
    if (high !== null && b > high) [b, clipped] = [high, true];
    return [a, b];
  });
  return clipped && bounds ? { name, range, clipped: bounds } : { name, range };
}

export interface ChartBands {
  seeds: number;
  series: SeriesBand[];
  /** The chart overlays runs, some perhaps single: the caption names the repeated ones. */
  overlay?: boolean;
}

export type RepeatsCurves = Pick<Repeats, 'count' | 'seeds' | 'curves' | 'confusion_matrices'>;

/** The repeats block of an output's data (output_data.repeats), or null for a single run. */
export function repeatsCurvesOf(outputData: unknown): RepeatsCurves | null {
  if (!outputData || typeof outputData !== 'object') return null;
  const block = (outputData as { repeats?: unknown }).repeats;
  return block && typeof block === 'object' ? (block as RepeatsCurves) : null;
}

/**
 * The bands of one chart: its repeated curve's series whose length is the chart's (a running output's
 * live chart, the first seed's, has another length and gets none). Null when nothing is banded.
 */
export function bandsFor(spec: ChartSpec, repeats: RepeatsCurves | null | undefined): ChartBands | null {
  if (!repeats || spec.type !== 'line') return null;
  const curve = repeats.curves?.find((c) => c.title === spec.title);
  if (!curve) return null;
  const series: SeriesBand[] = [];
  for (const recorded of curve.series) {
    const drawn = spec.series.find((s) => s.name === recorded.name);
    if (!drawn || drawn.data.length !== recorded.mean.length) continue;
    const bounds = naturalRange(spec.label, recorded.name, recorded.mean);
    series.push(seriesBand(recorded.name, recorded.mean, recorded.sd, bounds));
  }
  return series.length > 0 ? { seeds: repeats.count, series } : null;
}

/** A series drawn as a mean of repeated runs and its sd at each point (an overlay of runs). */
export interface SeriesSpread {
  name: string;
  seeds: number;
  sd: readonly number[];
}

/**
 * The bands of a chart overlaying runs (the comparison's curves, the run table's selected runs): each
 * drawn series that is the mean of a repeated run gets its band, cut at the chart's natural range like
 * any other. Null when no drawn series was repeated.
 */
export function overlayBands(spec: ChartSpec, spreads: readonly SeriesSpread[]): ChartBands | null {
  if (spec.type !== 'line') return null;
  const series: SeriesBand[] = [];
  for (const spread of spreads) {
    const drawn = spec.series.find((s) => s.name === spread.name);
    if (!drawn || spread.sd.length === 0 || drawn.data.length !== spread.sd.length) continue;
    const mean = drawn.data.map((p) => (typeof p === 'number' ? p : null));
    const band = seriesBand(spread.name, mean, spread.sd, naturalRange(spec.label, spread.name, mean));
    series.push({ ...band, seeds: spread.seeds });
  }
  if (series.length === 0) return null;
  return { seeds: Math.max(...series.map((s) => s.seeds!)), series, overlay: true };
}

/** The caption a banded chart carries. */
export function bandCaption(bands: ChartBands): string {
  const counts = new Set(bands.series.map((s) => s.seeds ?? bands.seeds));
  const over =
    bands.overlay || counts.size > 1
      ? `Repeated runs drawn as their mean (${bands.series.map((s) => `${s.name} over ${s.seeds ?? bands.seeds} seeds`).join(', ')})`
      : `Mean over ${[...counts][0] ?? bands.seeds} seeds`;
  const base = `${over}; shaded band: mean ${BAND_TEXT} (sample standard deviation over the seeds)`;
  const cuts = bands.series
    .filter((s) => s.clipped)
    .map((s) => {
      const [low, high] = s.clipped!;
      return high === null
        ? `${s.name} at ${low} (it cannot be negative)`
        : `${s.name} at ${low} and ${high} (the values it can take)`;
    });
  return cuts.length > 0 ? `${base}, cut at the bounds of the measure: ${cuts.join('; ')}` : base;
}

export interface SeedMatrices {
  seeds: number[];
  matrices: number[][][];
}

/** Each seed's matrix of a summed confusion matrix chart (matched by title), or null. */
export function seedMatricesFor(
  spec: ChartSpec,
  repeats: RepeatsCurves | null | undefined,
): SeedMatrices | null {
  if (!repeats || spec.type !== 'confusion_matrix') return null;
  const entry = repeats.confusion_matrices?.find((m) => m.title === spec.title);
  if (!entry || entry.runs.length === 0) return null;
  return { seeds: entry.runs.map((r) => r.seed), matrices: entry.runs.map((r) => r.matrix) };
}

/** The confusion matrix chart of one seed: the summed chart's rows and classes with that seed's counts. */
export function seedMatrixSpec(spec: ChartSpec, seed: number, matrix: number[][]): ChartSpec {
  const title = spec.title.replace(/\s*\(summed over [^)]*\)$/, '');
  return {
    ...spec,
    title: `${title} (seed ${seed})`,
    series: spec.series.map((s, row) => ({ name: s.name, data: matrix[row] ?? [] })),
  };
}
