import type { ApexAxisChartSeries, ApexOptions, ApexXAxis } from 'apexcharts';
import type { ReactNode } from 'react';
import type { ChartSpec } from '../../generated/worker-contract';
import { BAND_TEXT, bandCaption, type ChartBands } from './chart-bands';
import { LazyChart } from './lazy-chart';

/**
 * One chart of the worker protocol (ChartSpec: line, bar, heatmap or confusion_matrix; title; label;
 * series; categories) drawn with ApexCharts. It knows chart types only, never a problem: every chart a
 * worker emits, live or stored, goes through here.
 */

type Point = ChartSpec['series'][number]['data'][number];
type ApexType = 'line' | 'bar' | 'heatmap' | 'rangeArea';
export interface ApexChartConfig {
  type: ApexType;
  series: ApexAxisChartSeries;
  options: ApexOptions;
}

const COLORS = ['#4f46e5', '#f97316', '#10b981', '#ef4444', '#0ea5e9', '#a855f7'];
/** Spec section 9: a long x axis gets about one tick per n/20 points, so about 20 ticks. */
const MAX_TICKS = 20;

/** '-0.0000' (a tick a hair below zero) reads as 0. */
const withoutNegativeZero = (text: string) => (/^-0(?:\.0+)?$/.test(text) ? text.slice(1) : text);

const decimalsFor = (magnitude: number) => (magnitude >= 1000 ? 0 : magnitude >= 10 ? 2 : 4);

/**
 * Axis numbers: at most 4 decimals (spec section 9: loss axes show 4), none for large values. `scale` is
 * the largest magnitude on the axis: every tick gets at most its decimals, so an axis up to 9,600 reads
 * 0, 2000, 4000 (not 0.0000, 2000), and one up to 17 reads 13.50, 14.00.
 */
export function formatAxisNumber(value: number, scale = Math.abs(value)): string {
  if (!Number.isFinite(value)) return '';
  const decimals = Math.min(decimalsFor(Math.abs(value)), decimalsFor(Math.abs(scale)));
  return withoutNegativeZero(value.toFixed(decimals));
}

/** Ticks of an axis whose data are whole numbers (0/1 selections, counts): no trailing zeros ('0.2', '1'). */
export function formatWholeDataTick(value: number): string {
  if (!Number.isFinite(value)) return '';
  return withoutNegativeZero(String(Number(value.toFixed(2))));
}

/** Ticks on a numeric x axis (ApexCharts spaces them evenly from the smallest x to the largest). */
const NUMERIC_X_TICKS = 5;

/**
 * Labels of a numeric x axis spanning `min`..`max` in `ticks` equal steps: as many decimals as the step
 * needs for neighbouring ticks to differ (a route map over 0.04 degrees of longitude read 13.39, 13.39,
 * 13.40 at 2 decimals), at most 6; whole numbers when the step is 1 or more.
 */
export function numericTickFormatter(
  min: number,
  max: number,
  ticks = NUMERIC_X_TICKS,
): (v: number) => string {
  const step = (max - min) / ticks;
  const decimals =
    Number.isFinite(step) && step > 0 ? Math.min(6, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))) : 2;
  return (v) => (Number.isFinite(v) ? withoutNegativeZero(v.toFixed(decimals)) : '');
}

/** The x values of a spec's [x, y] pairs. */
function xValues(spec: ChartSpec): number[] {
  return spec.series
    .flatMap((s) => s.data.flatMap((point) => (isPair(point) && point[0] !== null ? [Number(point[0])] : [])))
    .filter(Number.isFinite);
}

/** The y values of a spec's series (numbers, [x, y] pairs and {x, y} cells alike). */
function yValues(spec: ChartSpec): number[] {
  return spec.series.flatMap((s) =>
    s.data
      .map((point) => (isCell(point) ? point.y : isPair(point) ? point[1] : point))
      .filter((y): y is number => typeof y === 'number' && Number.isFinite(y)),
  );
}

const isPair = (point: Point): point is [number | string | null, number | string | null] =>
  Array.isArray(point);
const isCell = (point: Point): point is { x: number | string; y: number | null } =>
  point !== null && typeof point === 'object' && !Array.isArray(point);

/** A number series as heatmap cells named by the categories (cells already {x, y} stay as they are). */
function cells(data: Point[], categories: ChartSpec['categories']): { x: string; y: number | null }[] {
  return data.map((point, index) => {
    if (isCell(point)) return { x: String(point.x), y: point.y };
    if (isPair(point)) return { x: String(point[0]), y: typeof point[1] === 'number' ? point[1] : null };
    return { x: String(categories[index] ?? index + 1), y: typeof point === 'number' ? point : null };
  });
}

/** Spec section 9: heatmap colour ranges are thirds of the largest value. */
export function heatRanges(values: number[]): { from: number; to: number; color: string; name: string }[] {
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  if (max <= 0) return [];
  const third = max / 3;
  return [
    { from: min, to: third, color: '#e0e7ff', name: 'low' },
    { from: third, to: 2 * third, color: '#a5b4fc', name: 'mid' },
    { from: 2 * third, to: max, color: '#818cf8', name: 'high' },
  ];
}

/** Spec section 9: loss axes show 4 decimals, whatever the size of the values. */
export function isLossChart(spec: ChartSpec): boolean {
  const words = [spec.title, spec.label, ...spec.series.map((s) => s.name)].join(' ');
  return /loss/i.test(words);
}

/** The x axis tick count: every category up to MAX_TICKS, then about one tick per n/20 points. */
export function xTickAmount(points: number): number | undefined {
  return points > MAX_TICKS ? MAX_TICKS : undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/**
 * The categories as UTC timestamps (ms) when every one is an ISO date ('2024-01-31', '2024-01-31 10:00',
 * '2024-01-31T10:00:00Z'; a date or time without an offset is read as UTC, as the dataset wrote it), else
 * null.
 */
export function dateCategories(categories: ChartSpec['categories']): number[] | null {
  if (categories.length === 0) return null;
  const stamps: number[] = [];
  for (const c of categories) {
    if (typeof c !== 'string' || !ISO_DATE.test(c)) return null;
    const text = c.trim().replace(' ', 'T');
    const zoned = text.length <= 10 || /(?:Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
    const stamp = Date.parse(zoned);
    if (!Number.isFinite(stamp)) return null;
    stamps.push(stamp);
  }
  return stamps;
}

/**
 * The x axis title a ChartSpec implies (the protocol carries only the y label): the two standard curves by
 * their names (ROC: false positive rate; precision-recall: recall), a title '... per epoch' (evaluation,
 * iteration) names its step, dates are 'Date'. Undefined when nothing says it (no title is made up).
 */
export function xAxisTitle(spec: ChartSpec): string | undefined {
  if (/\bROC\b/.test(spec.title)) return 'False positive rate';
  if (/precision[- ]recall/i.test(spec.title)) return 'Recall';
  const per = /\bper (epoch|evaluation|iteration|step)\b/i.exec(spec.title);
  if (per) return per[1][0].toUpperCase() + per[1].slice(1).toLowerCase();
  if (spec.categories.length > 0 && spec.categories.every((c) => typeof c === 'string' && ISO_DATE.test(c)))
    return 'Date';
  return undefined;
}

/**
 * The ApexCharts type, series and options of a ChartSpec (exported for tests); with `bands` (a run
 * repeated over seeds), a line chart over categories or dates is drawn as its lines with a shaded band
 * per banded series.
 */
export function apexConfig(spec: ChartSpec, bands?: ChartBands | null): ApexChartConfig {
  const plain = plainConfig(spec);
  const pairs = spec.series.some((s) => s.data.some(isPair));
  return bands && spec.type === 'line' && !pairs ? bandedConfig(spec, plain, bands) : plain;
}

const pointValue = (point: Point | undefined): number | null => {
  const value = point === undefined ? null : isCell(point) ? point.y : isPair(point) ? point[1] : point;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
};

/**
 * A line chart with bands: ApexCharts' rangeArea combination, the bands first (filled, no stroke, each
 * in its line's colour and named '{series} ± 1 sd' in the legend and tooltip), then the lines. Points
 * are {x, y} on the chart's own x axis (dates as timestamps, else the categories).
 */
function bandedConfig(spec: ChartSpec, plain: ApexChartConfig, bands: ChartBands): ApexChartConfig {
  const stamps = dateCategories(spec.categories);
  const xs: (number | string)[] = stamps ?? spec.categories.map(String);
  const colorOf = (name: string) =>
    COLORS[
      Math.max(
        0,
        spec.series.findIndex((s) => s.name === name),
      ) % COLORS.length
    ];
  const bandSeries = bands.series.map((band) => ({
    type: 'rangeArea',
    name: `${band.name} ${BAND_TEXT}`,
    data: xs.flatMap((x, i) => {
      const range = band.range[i];
      return range ? [{ x, y: range }] : [];
    }),
  }));
  const lineSeries = spec.series.map((s) => ({
    type: 'line',
    name: s.name,
    data: xs.map((x, i) => ({ x, y: pointValue(s.data[i]) })),
  }));
  // No categories on the axis: the points carry their x (ApexCharts reads a category axis from them).
  const { categories: _categories, ...xaxis } = plain.options.xaxis ?? {};
  return {
    type: 'rangeArea',
    series: [...bandSeries, ...lineSeries] as ApexAxisChartSeries,
    options: {
      ...plain.options,
      chart: { ...plain.options.chart, type: 'rangeArea' },
      colors: [...bands.series.map((b) => colorOf(b.name)), ...spec.series.map((s) => colorOf(s.name))],
      fill: { opacity: [...bands.series.map(() => 0.2), ...spec.series.map(() => 1)] },
      stroke: { curve: 'straight', width: [...bands.series.map(() => 0), ...spec.series.map(() => 2)] },
      legend: { show: true, position: 'top' },
      xaxis,
    },
  };
}

function plainConfig(spec: ChartSpec): ApexChartConfig {
  const base: ApexOptions = {
    chart: { toolbar: { show: false }, animations: { enabled: false }, zoom: { enabled: false } },
    colors: COLORS,
    legend: { show: spec.series.length > 1, position: 'top' },
    dataLabels: { enabled: false },
    tooltip: { y: { formatter: (v: number) => (typeof v === 'number' ? formatAxisNumber(v) : String(v)) } },
  };
  if (spec.type === 'heatmap' || spec.type === 'confusion_matrix') {
    const confusion = spec.type === 'confusion_matrix';
    // ApexCharts draws the first series at the bottom: reversed, the first row of the matrix is on top.
    const series = spec.series.map((s) => ({ name: s.name, data: cells(s.data, spec.categories) })).reverse();
    const values = series.flatMap((s) => s.data.map((c) => c.y).filter((y): y is number => y !== null));
    const ranges = confusion || values.every((v) => v >= 0) ? heatRanges(values) : [];
    return {
      type: 'heatmap',
      series,
      options: {
        ...base,
        legend: { show: false },
        colors: ['#818cf8'],
        dataLabels: {
          enabled: true,
          // Dark numbers read on every cell colour of the ranges (white did not on the light third).
          style: { colors: ['#1e1b4b'] },
          formatter: (v) =>
            typeof v === 'number' ? (confusion ? String(v) : formatAxisNumber(v)) : String(v),
        },
        plotOptions: { heatmap: { enableShades: ranges.length === 0, colorScale: { ranges } } },
        xaxis: { title: { text: confusion ? 'Predicted' : undefined } },
        yaxis: { title: { text: confusion ? 'True' : undefined } },
      },
    };
  }
  const pairs = spec.series.some((s) => s.data.some(isPair));
  const loss = isLossChart(spec);
  const values = yValues(spec);
  const scale = Math.max(0, ...values.map(Math.abs));
  const yFormatter: (v: number) => string = loss
    ? (v) => withoutNegativeZero(v.toFixed(4))
    : values.length > 0 && values.every(Number.isInteger)
      ? formatWholeDataTick
      : (v) => formatAxisNumber(v, scale);
  // ApexCharts 7.9.1 throws while placing the data labels of a bar chart whose only series has a
  // name (it drew an empty card): a lone bar series goes unnamed; its legend is hidden anyway.
  const unnamed = spec.type === 'bar' && spec.series.length === 1;
  const series = spec.series.map((s) => ({
    ...(unnamed ? {} : { name: s.name }),
    data: pairs
      ? s.data.map((p) => (isPair(p) ? [Number(p[0]), p[1] === null ? null : Number(p[1])] : p))
      : s.data.map((p) => (isCell(p) ? p.y : isPair(p) ? Number(p[1]) : p)),
  })) as ApexAxisChartSeries;
  const xTitle = xAxisTitle(spec);
  // Dates on a line chart: a datetime axis, which places its own ticks (months, days) by the width, so
  // the labels of a long forecast no longer overlap as 20 rotated 'YYYY-MM-DD' categories did.
  const stamps = !pairs && spec.type === 'line' ? dateCategories(spec.categories) : null;
  if (stamps) {
    const timed = spec.series.map((s) => ({
      name: s.name,
      data: s.data.map((p, i) => [stamps[i] ?? null, isCell(p) ? p.y : isPair(p) ? Number(p[1]) : p]),
    })) as ApexAxisChartSeries;
    return {
      type: 'line',
      series: timed,
      options: {
        ...base,
        tooltip: {
          ...base.tooltip,
          x: { format: stamps.every((t) => t % 86_400_000 === 0) ? 'yyyy-MM-dd' : 'yyyy-MM-dd HH:mm' },
        },
        stroke: { width: 2, curve: 'straight' as const },
        xaxis: {
          type: 'datetime',
          labels: {
            datetimeUTC: true,
            rotate: 0,
            hideOverlappingLabels: true,
            datetimeFormatter: { year: 'yyyy', month: "MMM 'yy", day: 'dd MMM', hour: 'HH:mm' },
          },
          title: { text: xTitle },
        },
        yaxis: { title: { text: spec.label }, labels: { formatter: yFormatter } },
      },
    };
  }
  const xs = pairs ? xValues(spec) : [];
  const xFormatter = numericTickFormatter(Math.min(...xs), Math.max(...xs));
  const xaxis: ApexXAxis = pairs
    ? {
        type: 'numeric',
        tickAmount: NUMERIC_X_TICKS,
        labels: { formatter: (v: string) => xFormatter(Number(v)) },
        title: { text: xTitle },
      }
    : {
        type: 'category',
        categories: spec.categories.map(String),
        tickAmount: xTickAmount(spec.categories.length),
        labels: {
          rotate: -45,
          rotateAlways: spec.categories.length > MAX_TICKS,
          hideOverlappingLabels: true,
        },
        title: { text: xTitle },
      };
  return {
    type: spec.type === 'bar' ? 'bar' : 'line',
    series,
    options: {
      ...base,
      // Keys left undefined are not merged away by ApexCharts: a bar chart given `stroke: undefined`
      // drew no bars at all, so each type gets only its own keys.
      ...(spec.type === 'bar'
        ? { plotOptions: { bar: { borderRadius: 3, columnWidth: '55%' } } }
        : { stroke: { width: 2, curve: 'straight' as const } }),
      xaxis,
      yaxis: {
        title: { text: spec.label },
        labels: { formatter: yFormatter },
      },
    },
  };
}

/**
 * A ChartSpec as a titled card holding its ApexCharts chart (loaded on first use); with `bands`, the
 * banded series are drawn as mean and band, and the caption says what the band is.
 */
export function ChartSpecView({
  spec,
  height = 300,
  bands,
  children,
}: {
  spec: ChartSpec;
  height?: number;
  bands?: ChartBands | null;
  /** Shown under the title (a seed selector). */
  children?: ReactNode;
}) {
  const { type, series, options } = apexConfig(spec, bands);
  return (
    <figure
      className="chart-spec card"
      data-testid="chart-spec"
      data-chart-type={spec.type}
      data-bands={bands ? bands.series.length : undefined}
    >
      <figcaption>
        <strong>{spec.title}</strong>
        {bands && (
          <span
            className="muted chart-band-caption"
            data-testid="chart-band-caption"
            style={{ display: 'block', fontSize: '0.85em' }}
          >
            {bandCaption(bands)}
          </span>
        )}
      </figcaption>
      {children}
      <LazyChart type={type} height={height} series={series} options={options} />
    </figure>
  );
}
