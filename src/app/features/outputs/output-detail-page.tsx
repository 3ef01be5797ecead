import { useCallback, useEffect, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client';
import { ChartSpecView } from '../../components/chart-spec-view';
import { StatusBadge } from '../../components/status-badge';
import { formatTimestamp } from '../../format/dates';
import { browserRegistry } from '../../../renderers/browser-registry';
import { PipelineFlow } from '../../../renderers';
import type { AppData } from '../../../engine';
import { DemoTabs } from '../demo-data/demo-tabs';
import { followOutput, getOutputDetail, stopOutput, type JobEvent, type OutputDetail } from './api';
import { InferenceTab } from './inference-tab';
import {
  applyEvent,
  EMPTY_LIVE,
  formatExecutionTime,
  formatMetric,
  isOngoing,
  liveMetricChart,
  metricRows,
  outputTabs,
  TABS,
  type LiveState,
  type OutputTab,
} from './output-rules';
import '../applications/applications.css';
import './outputs.css';

/** Pause before following a stream again that ended while the output was still Ongoing. */
const FOLLOW_AGAIN_MS = 2000;

const TAB_IDS: Record<OutputTab, string> = {
  [TABS.inference]: 'inference',
  [TABS.pipeline]: 'pipeline',
  [TABS.results]: 'results',
  [TABS.visualization]: 'visualization',
};

/**
 * /applications/:appId/outputs/:outputId (spec section 2, output detail from the application detail):
 * back button 'Outputs'; tabs Model Inference (with a trained model), Pipeline (default), Results and
 * Visualization. While the output is Ongoing its live stream shows progress, logs and charts.
 */
export function OutputDetailPage() {
  const { appId, outputId } = useParams();
  const navigate = useNavigate();
  const id = Number(outputId);
  const [detail, setDetail] = useState<OutputDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState<LiveState>(EMPTY_LIVE);
  const [tab, setTab] = useState<OutputTab | null>(null);
  const [stopping, setStopping] = useState(false);

  // Spec section 4: a failed load shows its message; an output that is not there goes to /error/404.
  const load = useCallback(
    (): Promise<OutputDetail | null> =>
      getOutputDetail(id).then(
        (found) => {
          setDetail(found);
          setError(null);
          return found;
        },
        (e: unknown) => {
          if (e instanceof ApiError && e.status === 404) void navigate('/error/404', { replace: true });
          else setError(e instanceof Error ? e.message : String(e));
          return null;
        },
      ),
    [id, navigate],
  );

  useEffect(() => {
    if (!Number.isInteger(id) || id <= 0) {
      void navigate('/error/404', { replace: true });
      return;
    }
    void load();
  }, [id, load, navigate]);

  // While Ongoing: follow the output's stream (it replays the stored events first); when it ends, read
  // the stored detail, which holds the final status, metrics and charts. A stream that ends while the
  // output is still Ongoing (a dropped connection) is followed again after a pause.
  const ongoing = detail !== null && isOngoing(detail.status);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!ongoing) return;
    const controller = new AbortController();
    // The stream starts with every stored event: the live state is rebuilt from its first one.
    let fresh = true;
    const onEvent = (event: JobEvent) => {
      const first = fresh;
      fresh = false;
      setLive((state) => applyEvent(first ? EMPTY_LIVE : state, event));
    };
    followOutput(id, onEvent, controller.signal)
      .catch(() => undefined)
      .finally(() => {
        if (controller.signal.aborted) return;
        void load().then((found) => {
          if (found && isOngoing(found.status))
            setTimeout(() => !controller.signal.aborted && setRound((n) => n + 1), FOLLOW_AGAIN_MS);
        });
      });
    return () => controller.abort();
  }, [ongoing, id, load, round]);

  const tabs = useMemo(() => (detail ? outputTabs(detail) : null), [detail]);
  const selected: OutputTab | null = tab && tabs?.tabs.includes(tab) ? tab : (tabs?.initial ?? null);

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

  const status = ongoing && live.status ? live.status : detail?.status;
  return (
    <section className="page output-detail">
      <div className="detail-head">
        <button
          type="button"
          className="button secondary"
          onClick={() => void navigate(`/applications/${appId ?? detail?.application_id ?? ''}`)}
        >
          ← Outputs
        </button>
        <h1>{detail ? detail.name : 'Output'}</h1>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!detail || !tabs || !selected || !status ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <div className="card output-summary">
            <dl className="detail-summary">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={status} />
                {status === 'Completed' && (
                  <span className="muted" data-testid="completed-at">
                    {' '}
                    {formatTimestamp(detail.completed_at)}
                  </span>
                )}
              </dd>
              <dt>Output Id</dt>
              <dd>{detail.id}</dd>
              <dt>Created Date</dt>
              <dd>{formatTimestamp(detail.created_at)}</dd>
              <dt>Completed</dt>
              <dd>{isOngoing(status) ? 'N/A' : formatTimestamp(detail.completed_at)}</dd>
              <dt>Model Type</dt>
              <dd>{detail.trained_model_type ?? '—'}</dd>
              <dt>Execution Time</dt>
              <dd data-testid="execution-time">{formatExecutionTime(detail.execution_time)}</dd>
            </dl>
            {isOngoing(status) && (
              <button type="button" className="button danger" onClick={() => void stop()} disabled={stopping}>
                Stop
              </button>
            )}
          </div>
          {status === 'Failed' && (detail.error ?? live.reason) && (
            <p className="form-error" role="alert" data-testid="failure-reason">
              {detail.error ?? live.reason}
            </p>
          )}
          {isOngoing(status) && <LiveProgress live={live} />}
          <DemoTabs
            label="Output"
            idPrefix="output"
            tabs={tabs.tabs.map((t) => ({ id: TAB_IDS[t], title: t }))}
            selected={TAB_IDS[selected]}
            onSelect={(picked) => setTab(tabs.tabs.find((t) => TAB_IDS[t] === picked) ?? null)}
          >
            {selected === TABS.inference && <InferenceTab detail={detail} />}
            {selected === TABS.pipeline && <PipelineTab detail={detail} />}
            {selected === TABS.results && (
              <ResultsTab detail={detail} live={live} ongoing={isOngoing(status)} />
            )}
            {selected === TABS.visualization && (
              <VisualizationTab detail={detail} live={live} ongoing={isOngoing(status)} />
            )}
          </DemoTabs>
        </>
      )}
    </section>
  );
}

function LiveProgress({ live }: { live: LiveState }) {
  const percent = live.progress ? Math.max(0, Math.min(100, live.progress.percent)) : 0;
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
    </div>
  );
}

function PipelineTab({ detail }: { detail: OutputDetail }) {
  const problem = browserRegistry().findProblem(detail.problem_id);
  if (!problem || !detail.app_data) return <p className="muted">No Data Available</p>;
  return (
    <div className="output-pipeline">
      <p className="muted">The application's pipeline as it was when this output ran.</p>
      <PipelineFlow problem={problem} appData={detail.app_data as AppData} />
    </div>
  );
}

function ResultsTab({ detail, live, ongoing }: { detail: OutputDetail; live: LiveState; ongoing: boolean }) {
  const logs = ongoing && live.logs.length > detail.output_logs.length ? live.logs : detail.output_logs;
  const text = logs.map((log) => `${formatTimestamp(log.at)}  [${log.level}] ${log.message}`).join('\n');
  return (
    <div className="output-results">
      <h2>Result Logs</h2>
      <pre className="output-text" data-testid="result-logs" tabIndex={0}>
        {text || 'No output records available'}
      </pre>
      <h2>Application Data</h2>
      <pre className="output-text" data-testid="application-data" tabIndex={0}>
        {detail.app_data ? JSON.stringify(detail.app_data, null, 2) : 'No Data Available'}
      </pre>
      {detail.run_record && (
        <>
          <h2>Run Record</h2>
          <pre className="output-text" data-testid="run-record" tabIndex={0}>
            {JSON.stringify(detail.run_record, null, 2)}
          </pre>
        </>
      )}
    </div>
  );
}

function VisualizationTab({
  detail,
  live,
  ongoing,
}: {
  detail: OutputDetail;
  live: LiveState;
  ongoing: boolean;
}) {
  const liveChart = ongoing ? liveMetricChart(live.stepped) : null;
  const charts = ongoing ? [...(liveChart ? [liveChart] : []), ...live.charts] : detail.charts;
  const metrics = ongoing ? { ...live.metrics, ...detail.metrics } : detail.metrics;
  const rows = metricRows(metrics, detail.baseline);
  return (
    <div className="output-visualization">
      {detail.dataset && (
        <p className="output-dataset" data-testid="output-dataset">
          Dataset: <strong>{detail.dataset.label}</strong>
          {detail.dataset.synthetic && <span className="synthetic-badge">Synthetic</span>}
          <span className="muted">
            {' · '}
            {detail.dataset.rows_used === null
              ? `${detail.dataset.rows} rows in the file`
              : `${detail.dataset.rows_used} of ${detail.dataset.rows} rows used`}
          </span>
        </p>
      )}
      {rows.length > 0 && (
        <table className="metrics-table" data-testid="metrics-table">
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">{detail.trained_model_type ?? 'Model'}</th>
              {detail.baseline && <th scope="col">{detail.baseline.name}</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.name}>
                <th scope="row">{row.name}</th>
                <td>{formatMetric(row.model)}</td>
                {detail.baseline && <td>{formatMetric(row.baseline)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {charts.length === 0 ? (
        <p className="muted">{ongoing ? 'Loading plots...' : `No plots available for ${detail.name}.`}</p>
      ) : (
        <div className="output-charts">
          {charts.map((chart, index) => (
            <ChartSpecView key={`${chart.title}-${index}`} spec={chart} />
          ))}
        </div>
      )}
    </div>
  );
}
