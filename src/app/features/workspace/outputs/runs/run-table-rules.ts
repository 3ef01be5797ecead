import type { ChartSpec } from '../../../../api/outputs';
import { overlayBands, type ChartBands, type SeriesSpread } from '../../../../components/chart-bands';
import type { RunTableData } from './runs-api';

/**
 * The run table's rules, apart from the view: search or filter by metric ('rmse < 0.3'), sorting by any
 * column, the selected runs' curves on one chart, a metric against a setting.
 */

export type Run = RunTableData['runs'][number];
export type Column = { kind: 'id' } | { kind: 'metric'; key: string } | { kind: 'setting'; key: string };
export interface MetricFilter {
  metric: string;
  op: '<' | '<=' | '>' | '>=' | '=';
  value: number;
}

const FILTER = /^\s*([A-Za-z_][\w.]*)\s*(<=|>=|<|>|=)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*$/i;

/** 'rmse < 0.3' as a filter of a known metric; null for anything else (then the text is a search). */
export function parseMetricFilter(text: string, metrics: readonly string[]): MetricFilter | null {
  const match = FILTER.exec(text);
  if (!match) return null;
  const metric = metrics.find((m) => m.toLowerCase() === match[1]!.toLowerCase());
  return metric ? { metric, op: match[2] as MetricFilter['op'], value: Number(match[3]) } : null;
}

const passes = (value: number | undefined, f: MetricFilter) => {
  if (value === undefined) return false;
  switch (f.op) {
    case '<':
      return value < f.value;
    case '<=':
      return value <= f.value;
    case '>':
      return value > f.value;
    case '>=':
      return value >= f.value;
    case '=':
      return value === f.value;
  }
};

/** A metric filter keeps the runs that meet it; other text matches the id, name or model. */
export function filterRuns(runs: readonly Run[], text: string, metrics: readonly string[]): Run[] {
  const query = text.trim();
  if (!query) return [...runs];
  const filter = parseMetricFilter(query, metrics);
  if (filter) return runs.filter((run) => passes(run.metrics[filter.metric], filter));
  const lowered = query.toLowerCase();
  return runs.filter((run) =>
    [String(run.id), run.name, run.model ?? ''].some((field) => field.toLowerCase().includes(lowered)),
  );
}

const valueOf = (run: Run, column: Column): number | string | boolean | null | undefined => {
  if (column.kind === 'id') return run.id;
  if (column.kind === 'metric') return run.metrics[column.key];
  return run.settings[column.key];
};

/** Sorted by `column`; runs without a value last either way. */
export function sortRuns(runs: readonly Run[], column: Column, direction: 'ascending' | 'descending'): Run[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return [...runs].sort((a, b) => {
    const [x, y] = [valueOf(a, column), valueOf(b, column)];
    const missingX = x === undefined || x === null;
    const missingY = y === undefined || y === null;
    if (missingX || missingY) return missingX === missingY ? 0 : missingX ? 1 : -1;
    if (typeof x === 'number' && typeof y === 'number') return (x - y) * sign;
    return String(x).localeCompare(String(y), undefined, { numeric: true }) * sign;
  });
}

/**
 * The selected runs' test (else training) loss per epoch on one chart, a run repeated over seeds as its
 * mean with its band; null without any.
 */
export function curvesChart(runs: readonly Run[]): { spec: ChartSpec; bands: ChartBands | null } | null {
  const spreads: SeriesSpread[] = [];
  const series = runs
    .map((run) => {
      const test = Boolean(run.history?.test_loss.length);
      const data = test ? run.history!.test_loss : (run.history?.train_loss ?? []);
      const name = `#${run.id} ${run.model ?? ''}`.trim();
      if (run.spread) {
        spreads.push({ name, seeds: run.spread.seeds, sd: run.spread.sd[test ? 'test_loss' : 'train_loss'] });
      }
      return { name, data };
    })
    .filter((s) => s.data.length > 0);
  if (series.length === 0) return null;
  const epochs = Math.max(...series.map((s) => s.data.length));
  const spec: ChartSpec = {
    type: 'line',
    title: 'Test loss per epoch of the selected runs',
    label: 'loss',
    series,
    categories: Array.from({ length: epochs }, (_, i) => i + 1),
  };
  return { spec, bands: overlayBands(spec, spreads) };
}

/** One metric against one setting over `runs` (each run a point, by the setting's value). */
export function metricBySetting(
  runs: readonly Run[],
  metric: string,
  setting: string,
  label: string,
): ChartSpec | null {
  const points = sortRuns(
    runs.filter((run) => run.metrics[metric] !== undefined && run.settings[setting] !== undefined),
    { kind: 'setting', key: setting },
    'ascending',
  );
  if (points.length === 0) return null;
  return {
    type: 'line',
    title: `${label} by ${setting.split('.').at(-1)!.replace(/_/g, ' ')}`,
    label,
    series: [{ name: label, data: points.map((run) => run.metrics[metric]!) }],
    categories: points.map((run) => String(run.settings[setting])),
  };
}
