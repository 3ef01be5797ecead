import type { OutputDetail } from '../../../../api/outputs';
import { naturalRange, seriesBand } from '../../../../components/chart-bands';
import { metricLabel } from '../output-rules';

/**
 * A run repeated with consecutive seeds (the form's Repeats): each metric's mean ± standard deviation
 * and 95% interval beside its baseline's over the same seeds and splits, and the loss curves drawn as
 * the mean with a band of ± one standard deviation. Nothing for a single run.
 */

interface Stat {
  n: number;
  mean: number | null;
  sd: number | null;
  ci_low: number | null;
  ci_high: number | null;
}
interface Band {
  mean: number[];
  sd: number[];
}
export interface RepeatsBlock {
  count: number;
  seeds: number[];
  confidence: number;
  metrics: Record<string, Stat>;
  baseline: { name: string; metrics: Record<string, Stat> } | null;
  losses: { train: Band; test: Band } | null;
}

export function repeatsOf(detail: Pick<OutputDetail, 'output_data'>): RepeatsBlock | null {
  const block = (detail.output_data as Record<string, unknown>).repeats;
  return block && typeof block === 'object' ? (block as RepeatsBlock) : null;
}

const shown = (value: number | null) =>
  value === null ? '—' : Number(value.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 12 });

const statText = (stat: Stat | undefined) =>
  !stat || stat.mean === null
    ? '—'
    : stat.sd === null
      ? shown(stat.mean)
      : `${shown(stat.mean)} ± ${shown(stat.sd)}`;

const intervalText = (stat: Stat | undefined) =>
  !stat || stat.ci_low === null || stat.ci_high === null
    ? '—'
    : `${shown(stat.ci_low)} to ${shown(stat.ci_high)}`;

const WIDTH = 480;
const HEIGHT = 200;
const PAD = 28;

/** The curves' mean lines and ± sd bands on one SVG (a polygon per band: upper edge, then lower back). */
export function LossBandChart({ losses }: { losses: { train: Band; test: Band } }) {
  const series = [
    { name: 'Training loss', band: losses.train, color: '#4f46e5' },
    { name: 'Test loss', band: losses.test, color: '#f97316' },
  ]
    .filter((s) => s.band.mean.length > 0)
    // the same band as the charts': mean ± sd, cut at 0 (a loss is never negative)
    .map((s) => ({
      ...s,
      range: seriesBand(s.name, s.band.mean, s.band.sd, naturalRange('loss', s.name)).range.map((r) => r!),
    }));
  const lows = series.flatMap((s) => s.range.map((r) => r[0]));
  const cut = series.some((s) => s.band.mean.some((m, i) => m - (s.band.sd[i] ?? 0) < 0));
  const highs = series.flatMap((s) => s.range.map((r) => r[1]));
  const min = Math.min(...lows);
  const max = Math.max(...highs);
  const span = max - min || 1;
  const epochs = Math.max(...series.map((s) => s.band.mean.length));
  const x = (i: number) => PAD + (epochs > 1 ? (i / (epochs - 1)) * (WIDTH - 2 * PAD) : 0);
  const y = (v: number) => HEIGHT - PAD - ((v - min) / span) * (HEIGHT - 2 * PAD);
  const pt = (i: number, v: number) => `${x(i).toFixed(2)},${y(v).toFixed(2)}`;
  return (
    <figure className="repeats-loss" data-testid="repeats-loss-chart">
      <figcaption>
        Loss over epochs: mean over the seeds, band ± one standard deviation
        {cut ? ', cut at 0 (a loss cannot be negative)' : ''}
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        style={{ maxWidth: 640, display: 'block' }}
        aria-label="Loss over epochs with a band of one standard deviation"
      >
        <text x={2} y={PAD - 8} fontSize="10">
          {shown(max)}
        </text>
        <text x={2} y={HEIGHT - 4} fontSize="10">
          {shown(min)}
        </text>
        {series.map((s) => {
          const upper = s.range.map((r, i) => pt(i, r[1]));
          const lower = s.range.map((r, i) => pt(i, r[0])).reverse();
          return (
            <g key={s.name} data-series={s.name}>
              <polygon
                data-testid="loss-band"
                points={[...upper, ...lower].join(' ')}
                fill={s.color}
                fillOpacity={0.18}
                stroke="none"
              />
              <polyline
                data-testid="loss-mean"
                points={s.band.mean.map((m, i) => pt(i, m)).join(' ')}
                fill="none"
                stroke={s.color}
                strokeWidth={2}
              />
            </g>
          );
        })}
      </svg>
      <p className="muted">
        {series.map((s) => (
          <span key={s.name} style={{ color: s.color, marginRight: '1em' }}>
            ■ {s.name}
          </span>
        ))}
      </p>
    </figure>
  );
}

export function RepeatsSummary({ detail }: { detail: Pick<OutputDetail, 'output_data'> }) {
  const repeats = repeatsOf(detail);
  if (!repeats) return null;
  const percent = `${Math.round(repeats.confidence * 100)}%`;
  const names = Object.keys(repeats.metrics);
  return (
    <section className="repeats-summary" data-testid="repeats-summary">
      <h4>
        Repeated over {repeats.count} seeds ({repeats.seeds[0]} to {repeats.seeds.at(-1)})
      </h4>
      <table className="metrics-table">
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">Mean ± sd</th>
            <th scope="col">{percent} interval</th>
            {repeats.baseline && <th scope="col">{repeats.baseline.name} (mean ± sd)</th>}
          </tr>
        </thead>
        <tbody>
          {names.map((name) => (
            <tr key={name} data-metric={name}>
              <th scope="row">{metricLabel(name)}</th>
              <td>{statText(repeats.metrics[name])}</td>
              <td>{intervalText(repeats.metrics[name])}</td>
              {repeats.baseline && <td>{statText(repeats.baseline.metrics[name])}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {repeats.losses && <LossBandChart losses={repeats.losses} />}
    </section>
  );
}
