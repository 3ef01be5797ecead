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
  /** Per point [mean - sd, mean + sd]; null where no seed reached the point. */
  range: ([number, number] | null)[];
}

export interface ChartBands {
  seeds: number;
  series: SeriesBand[];
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
    series.push({
      name: recorded.name,
      range: recorded.mean.map((mean, i) => {
        if (mean === null) return null;
        const sd = recorded.sd[i] ?? 0;
        return [mean - sd, mean + sd];
      }),
    });
  }
  return series.length > 0 ? { seeds: repeats.count, series } : null;
}

/** The caption a banded chart carries. */
export function bandCaption(bands: ChartBands): string {
  return `Mean over ${bands.seeds} seeds; shaded band: mean ${BAND_TEXT} (sample standard deviation over the seeds)`;
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
