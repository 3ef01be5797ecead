import { useState } from 'react';
import { TableMessageRow } from '../../../../components/table-message-row';
import { StatusBadge } from '../../../../components/status-badge';
import { formatTimestamp } from '../../../../format/dates';
import type { OutputSummary } from '../../../../api/applications';
import { stopOutput } from '../../../../api/outputs';
import { StopButton } from '../stop-button';
import { LiveProgress, useLiveEvents } from '../detail/output-parts';
import { isOngoing, NO_OUTPUTS } from '../../../../api/output-status';
import type { OutputsTabProps } from '../../workspace-types';
import { CompareOutputs } from '../overlays/compare-outputs';
import { AnalyzeOverlay, CompareOverlay } from '../overlays/analyze-compare-overlays';
import { ReportKindChoice } from '../overlays/report-kind-choice';
import { RunTable } from '../runs/run-table';
import { OutputView } from '../detail/output-view';
import { searchOutputs } from '../list-rules';
import { useOutputsList } from './use-outputs-list';
import '../../../../styles/application-lists.css';
import './outputs-list.css';
import '../report.css';

/**
 * The workspace's Outputs tab (spec section 2): the application's outputs with their status, search,
 * live progress and Stop for a running one, pins to compare metrics (any number), the written analysis
 * of one pinned output and the written comparison of two (Technical or Non-Technical overlays), and one
 * output's detail view.
 */
export function OutputsTab({
  problem,
  applicationId,
  appData,
  running,
  refreshKey,
  onCountChange,
  onRunAgain,
}: OutputsTabProps) {
  const { outputs, error, setError, refresh } = useOutputsList({
    applicationId,
    running,
    refreshKey,
    onCountChange,
  });
  const [query, setQuery] = useState('');
  const [openId, setOpenId] = useState<number | null>(null);
  const [pinned, setPinned] = useState<number[]>([]);
  const [comparing, setComparing] = useState(false);
  const [technical, setTechnical] = useState(true);
  const [overlay, setOverlay] = useState<'analyze' | 'compare' | null>(null);
  const [runTable, setRunTable] = useState(false);

  if (openId !== null)
    return (
      <OutputView
        problem={problem}
        outputId={openId}
        appData={appData}
        running={running}
        onBack={() => {
          setOpenId(null);
          void refresh();
        }}
        onRunAgain={onRunAgain}
      />
    );

  if (runTable) return <RunTable applicationId={applicationId} onClose={() => setRunTable(false)} />;

  const shown = outputs ? searchOutputs(outputs, query) : null;
  const togglePin = (id: number) => {
    setComparing(false);
    setPinned((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));
  };
  // the written reports read Completed outputs only
  const writable = (count: number) =>
    pinned.length === count &&
    pinned.every((id) => outputs?.find((o) => o.id === id)?.status === 'Completed');
  const stop = (id: number) =>
    stopOutput(problem.id, id).then(
      () => refresh(),
      (e: Error) => setError(e.message),
    );

  return (
    <div className="workspace-outputs">
      <div className="workspace-outputs-bar">
        <input
          type="search"
          className="input"
          aria-label="Search outputs"
          placeholder="Search by output id or name"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <button
          type="button"
          className="button secondary"
          disabled={pinned.length < 2}
          onClick={() => setComparing(true)}
          title="Pin two or more outputs to compare their metrics"
        >
          Compare{pinned.length > 0 ? ` (${pinned.length})` : ''}
        </button>
        <ReportKindChoice
          name="analysis-kind"
          technical={technical}
          onTechnicalChange={setTechnical}
          analyze={{
            disabled: !writable(1),
            onClick: () => setOverlay('analyze'),
            title: 'Pin one completed output for its written analysis',
          }}
          compare={{
            disabled: !writable(2),
            onClick: () => setOverlay('compare'),
            title: 'Pin two completed outputs for their written comparison',
          }}
          tone="secondary"
        />
        <button
          type="button"
          className="button secondary"
          onClick={() => setRunTable(true)}
          title="All runs with their metrics and settings: sort, filter by a metric, overlay curves"
        >
          Run table
        </button>
      </div>
      {overlay === 'analyze' && writable(1) && (
        <AnalyzeOverlay outputId={pinned[0]!} technical={technical} onClose={() => setOverlay(null)} />
      )}
      {overlay === 'compare' && writable(2) && (
        <CompareOverlay
          problem={problem}
          outputIds={[pinned[0]!, pinned[1]!]}
          technical={technical}
          onClose={() => setOverlay(null)}
        />
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {comparing && pinned.length >= 2 && (
        <CompareOutputs problem={problem} outputIds={pinned} onClose={() => setComparing(false)} />
      )}
      <div className="applications-table-wrap">
        <table className="applications-table" data-testid="outputs-table">
          <thead>
            <tr>
              <th>Pin</th>
              <th>Output Id</th>
              <th>Status</th>
              <th>Created Date</th>
              <th>Completed</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown === null ? (
              <TableMessageRow columns={6}>Loading…</TableMessageRow>
            ) : shown.length === 0 ? (
              <TableMessageRow columns={6}>{NO_OUTPUTS}</TableMessageRow>
            ) : (
              shown.map((output) => (
                <OutputRow
                  key={output.id}
                  output={output}
                  pinned={pinned.includes(output.id)}
                  onPin={() => togglePin(output.id)}
                  onOpen={() => setOpenId(output.id)}
                  onStop={() => stop(output.id)}
                />
              ))
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function OutputRow({
  output,
  pinned,
  onPin,
  onOpen,
  onStop,
}: {
  output: OutputSummary;
  pinned: boolean;
  onPin(): void;
  onOpen(): void;
  onStop(): Promise<void>;
}) {
  const ongoing = isOngoing(output.status);
  const [stopping, setStopping] = useState(false);
  return (
    <>
      <tr data-testid="output-row" data-output-id={output.id}>
        <td>
          <input
            type="checkbox"
            checked={pinned}
            onChange={onPin}
            aria-label={`Pin output ${output.id} to compare`}
          />
        </td>
        <td>{output.id}</td>
        <td>
          <StatusBadge status={output.status} />
        </td>
        <td>{formatTimestamp(output.created_at)}</td>
        <td>{ongoing ? 'N/A' : formatTimestamp(output.completed_at)}</td>
        <td className="workspace-output-actions">
          <button type="button" className="button secondary" onClick={onOpen}>
            View Details
          </button>
          {ongoing && (
            <StopButton
              stopping={stopping}
              onStop={() => {
                setStopping(true);
                void onStop().finally(() => setStopping(false));
              }}
            />
          )}
        </td>
      </tr>
      {ongoing && (
        <tr className="workspace-output-progress">
          <td colSpan={6}>
            <RowProgress outputId={output.id} />
          </td>
        </tr>
      )}
    </>
  );
}

/** A running output's live progress under its row (the list's polling notices when it ends). */
function RowProgress({ outputId }: { outputId: number }) {
  const live = useLiveEvents(outputId, true);
  return <LiveProgress live={live} />;
}
