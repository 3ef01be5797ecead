import { useCallback, useEffect, useState } from 'react';
import type { RepeatsCurves } from '../../../../components/chart-bands';
import { RepeatedChartView } from '../../../../components/repeated-chart-view';
import { formatTimestamp } from '../../../../format/dates';
import {
  followOutput,
  getOutputDetail,
  stopOutput,
  type JobEvent,
  type OutputDetail,
} from '../../../../api/outputs';
import { isOngoing } from '../../../../api/output-status';
import {
  applyEvent,
  EMPTY_LIVE,
  formatExecutionTime,
  formatMetric,
  latestStep,
  liveMetricChart,
  metricLabel,
  metricNotes,
  metricRows,
  quantumBackend,
  withMetricCategories,
  type LiveState,
} from '../output-rules';
import '../outputs.css';

/**
 * The parts of an output's view shared by the application detail's output page and the workspace's
 * Outputs tab: the live stream, progress, metrics beside the baseline, the charts and the result logs.
 */

/** Pause before following a stream again that ended while the output was still Ongoing. */
const FOLLOW_AGAIN_MS = 2000;

/**
 * Follows an output's live stream while `active` (it replays the stored events first, so the state is
 * rebuilt from its first event). When the stream ends `onEnded` runs; when it answers true (the output
 * is still Ongoing: a dropped connection) the stream is followed again after a pause.
 */
export function useLiveEvents(
  outputId: number,
  active: boolean,
  onEnded?: () => Promise<boolean>,
): LiveState {
  const [live, setLive] = useState<LiveState>(EMPTY_LIVE);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!active) return;
    const controller = new AbortController();
    let fresh = true;
    const onEvent = (event: JobEvent) => {
      const first = fresh;
      fresh = false;
      setLive((state) => applyEvent(first ? EMPTY_LIVE : state, event));
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    followOutput(outputId, onEvent, controller.signal)
      .catch(() => undefined)
      .finally(() => {
        if (controller.signal.aborted || !onEnded) return;
        void onEnded().then((again) => {
          if (again && !controller.signal.aborted)
            timer = setTimeout(() => setRound((n) => n + 1), FOLLOW_AGAIN_MS);
        });
      });
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [outputId, active, onEnded, round]);
  return live;
}

export interface LiveOutput {
  detail: OutputDetail | null;
  live: LiveState;
  /** The live status while Ongoing (the stream knows first), else the stored one. */
  status: OutputDetail['status'] | null;
  ongoing: boolean;
  error: string | null;
  stopping: boolean;
  stop(): Promise<void>;
}

/**
 * One output's stored detail, followed live while Ongoing and read again when its stream ends.
 * `onLoadError` decides what a failed read shows (null: nothing, e.g. after navigating away).
 */
export function useLiveOutput(outputId: number, onLoadError?: (error: unknown) => string | null): LiveOutput {
  const [detail, setDetail] = useState<OutputDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stopping, setStopping] = useState(false);

  const load = useCallback(
    (): Promise<OutputDetail | null> =>
      getOutputDetail(outputId).then(
        (found) => {
          setDetail(found);
          setError(null);
          return found;
        },
        (e: unknown) => {
          setError(onLoadError ? onLoadError(e) : e instanceof Error ? e.message : String(e));
          return null;
        },
      ),
    [outputId, onLoadError],
  );
  useEffect(() => {
    if (Number.isInteger(outputId) && outputId > 0) void load();
  }, [outputId, load]);

  const storedOngoing = detail !== null && isOngoing(detail.status);
  const reloadOngoing = useCallback(
    () => load().then((found) => found !== null && isOngoing(found.status)),
    [load],
  );
  const live = useLiveEvents(outputId, storedOngoing, reloadOngoing);
  const status = detail ? (storedOngoing && live.status ? live.status : detail.status) : null;

  const stop = async () => {
    if (!detail) return;
    setStopping(true);
    try {
      await stopOutput(detail.problem_id, detail.id);
      await load();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setStopping(false);
    }
  };
  return { detail, live, status, ongoing: status !== null && isOngoing(status), error, stopping, stop };
}

/** What to show of an output: the live stream's logs, charts and metrics while Ongoing, else the stored ones. */
export function outputView(detail: OutputDetail, live: LiveState, ongoing: boolean) {
  const liveChart = ongoing ? liveMetricChart(live.stepped) : null;
  return {
    logs: ongoing && live.logs.length > detail.output_logs.length ? live.logs : detail.output_logs,
    charts: ongoing ? [...(liveChart ? [liveChart] : []), ...live.charts] : detail.charts,
    metrics: ongoing ? { ...live.metrics, ...detail.metrics } : detail.metrics,
  };
}

/**
 * The run's facts both output views list in their summary: created, completed, model type, where a
 * quantum model's circuits ran (simulator, noise, shots or device), execution time.
 */
export function OutputFacts({ detail, ongoing }: { detail: OutputDetail; ongoing: boolean }) {
  // Where the result says the circuits ran; an output from before the worker said it: the form's settings.
  const backend = detail.quantum_backend ?? quantumBackend(detail.app_data);
  return (
    <>
      <dt>Created Date</dt>
      <dd>{formatTimestamp(detail.created_at)}</dd>
      <dt>Completed</dt>
      <dd data-testid="completed-at">{ongoing ? 'N/A' : formatTimestamp(detail.completed_at)}</dd>
      <dt>Model Type</dt>
      <dd>{detail.trained_model_type ?? '—'}</dd>
      {backend && (
        <>
          <dt>Quantum Backend</dt>
          <dd data-testid="quantum-backend">{backend}</dd>
        </>
      )}
      <dt>Execution Time</dt>
      <dd data-testid="execution-time">{formatExecutionTime(detail.execution_time)}</dd>
    </>
  );
}

/** A failed output's reason: the stored one, else the one its live stream reported. */
export function FailureReason({ detail, live }: { detail: OutputDetail; live: LiveState }) {
  const reason = detail.error ?? live.reason;
  if (!reason) return null;
  return (
    <p className="form-error" role="alert" data-testid="failure-reason">
      {reason}
    </p>
  );
}

/** A running output's progress: stage, percent, and the latest epoch and loss the stream reported. */
export function LiveProgress({ live }: { live: LiveState }) {
  const percent = live.progress ? Math.max(0, Math.min(100, live.progress.percent)) : 0;
  const latest = latestStep(live.stepped);
  return (
    <div className="card output-progress" data-testid="live-progress">
      <div className="output-progress-line">
        <span>{live.progress ? live.progress.stage : 'Waiting for a worker…'}</span>
        <span className="muted">{percent.toFixed(0)}%</span>
      </div>
      <div
        className="progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(percent)}
      >
        <div style={{ width: `${percent}%` }} />
      </div>
      {latest && (
        <p className="output-progress-step muted" data-testid="live-step">
          Epoch {latest.step} · {latest.name} {formatMetric(latest.value)}
        </p>
      )}
    </div>
  );
}

/** The dataset the run used, and how many of its rows. */
export function DatasetNote({ dataset }: { dataset: OutputDetail['dataset'] }) {
  if (!dataset) return null;
  return (
    <p className="output-dataset" data-testid="output-dataset">
      Dataset: <strong>{dataset.label}</strong>
      {dataset.synthetic && <span className="synthetic-badge">Synthetic</span>}
      <span className="muted">
        {' · '}
        {dataset.rows_used === null
          ? `${dataset.rows} rows in the file`
          : `${dataset.rows_used} of ${dataset.rows} rows used`}
      </span>
    </p>
  );
}

/**
 * A metric cell: 'n/a' when this method has no value for the metric (the worker reports an undefined
 * metric as null, e.g. persistence's direction accuracy: "no change" states no direction).
 */
const metricCell = (value: number | undefined) => (value === undefined ? 'n/a' : formatMetric(value));

/**
 * Each metric of the model beside the baseline's value of the same name, labelled in words (the row's
 * data-metric keeps the worker's key), with the units of what is there under it. `target` is the column a
 * forecast predicts (its errors are in its units).
 */
export function MetricsTable({
  metrics,
  baseline,
  modelName,
  target = null,
}: {
  metrics: Record<string, number>;
  baseline: OutputDetail['baseline'];
  modelName: string | null;
  target?: string | null;
}) {
  const rows = metricRows(metrics, baseline);
  if (rows.length === 0) return <p className="muted">No Data Available</p>;
  const notes = metricNotes(
    rows.map((row) => row.name),
    target,
  );
  return (
    <div className="metrics-block">
      <table className="metrics-table" data-testid="metrics-table">
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col">{modelName ?? 'Model'}</th>
            {baseline && <th scope="col">{baseline.name}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name} data-metric={row.name}>
              <th scope="row">{metricLabel(row.name)}</th>
              <td>{metricCell(row.model)}</td>
              {baseline && <td>{metricCell(row.baseline)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {notes.map((note) => (
        <p key={note} className="muted metrics-note" data-testid="metrics-note">
          {note}
        </p>
      ))}
    </div>
  );
}

/**
 * The output's charts, or the spec's empty texts ('Loading plots...' while it runs); a run repeated
 * over seeds draws its per-seed curves with their bands and its confusion matrices per seed on demand.
 */
export function OutputCharts({
  charts,
  ongoing,
  name,
  repeats,
}: {
  charts: OutputDetail['charts'];
  ongoing: boolean;
  name: string;
  repeats?: RepeatsCurves | null;
}) {
  if (charts.length === 0)
    return <p className="muted">{ongoing ? 'Loading plots...' : `No plots available for ${name}.`}</p>;
  return (
    <div className="output-charts" data-testid="output-charts">
      {charts.map((chart, index) => (
        <RepeatedChartView
          key={`${chart.title}-${index}`}
          spec={withMetricCategories(chart)}
          repeats={repeats}
        />
      ))}
    </div>
  );
}

/** The result logs as scrollable text, each line with its time in the user's timezone. */
export function ResultLogs({ logs }: { logs: OutputDetail['output_logs'] }) {
  const text = logs.map((log) => `${formatTimestamp(log.at)}  [${log.level}] ${log.message}`).join('\n');
  return (
    <pre className="output-text" data-testid="result-logs" tabIndex={0}>
      {text || 'No output records available'}
    </pre>
  );
}
