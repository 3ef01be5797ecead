import { useEffect, useState, type KeyboardEvent } from 'react';
import { TableMessageRow } from '../../../../components/table-message-row';
import { StatusBadge } from '../../../../components/status-badge';
import { formatTimestamp } from '../../../../format/dates';
import type { OutputSummary } from '../../../../api/applications';
import { isOngoing, NO_OUTPUTS } from '../../../../api/output-status';
import { searchOutputs } from '../list-rules';
import { useOutputsList } from './use-outputs-list';
import type { OutputsTabProps } from '../../workspace-types';
import { TrainingPredictionDetail } from '../detail/training-prediction-detail';
import { resultTypeOf, type ResultType } from '../result-data';
import { COMPARE_NOTICE_MS, PREDICTION_NOT_SELECTABLE, toggleSelection, TWO_SELECTED } from '../report-rules';
import { AnalyzeOverlay, CompareOverlay } from '../overlays/analyze-compare-overlays';
import { ReportKindChoice } from '../overlays/report-kind-choice';
import '../../../../styles/application-lists.css';
import '../report.css';

type Overlay = { kind: 'analyze'; id: number } | { kind: 'compare'; ids: [number, number] } | null;

const COLUMNS = ['', 'Output Id', 'Status', 'Created Date', 'Completed', 'Model Type', 'Result Type'];

/**
 * The brain tumor Outputs tab (spec section 2): trainings and predictions with their model and result
 * type, search by id, Refresh, up to 2 training outputs selected for Analyze Output / Compare Outputs
 * (Technical or Non-Technical), and a row opens the output's detail.
 */
export function TrainingsAndPredictionsList({
  problem,
  applicationId,
  running,
  refreshKey,
  onCountChange,
}: OutputsTabProps) {
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<number[]>([]);
  const [refusal, setRefusal] = useState<string | null>(null);
  // The selection the 300 ms comparison text was shown for (the text shows while it is still the selection).
  const [noticeFor, setNoticeFor] = useState<string | null>(null);
  const [technical, setTechnical] = useState(true);
  const [overlay, setOverlay] = useState<Overlay>(null);
  const [open, setOpen] = useState<{ id: number; resultType: ResultType | null } | null>(null);

  const { outputs, error, refresh } = useOutputsList({
    applicationId,
    running,
    refreshKey,
    onCountChange,
    // An output that left the list (deleted) leaves the selection.
    onListed: (found) => setSelected((ids) => ids.filter((id) => found.some((output) => output.id === id))),
  });
  // Spec section 2: the comparison text shows 300 ms after the second selection.
  const selectionKey = selected.join(',');
  useEffect(() => {
    if (selected.length !== 2) return;
    const timer = setTimeout(() => setNoticeFor(selectionKey), COMPARE_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [selected.length, selectionKey]);

  if (open)
    return (
      <TrainingPredictionDetail
        problem={problem}
        outputId={open.id}
        listedResultType={open.resultType}
        onBack={() => {
          setOpen(null);
          void refresh();
        }}
      />
    );

  const toggle = (id: number) => {
    const next = toggleSelection(selected, id);
    setRefusal(next.refused);
    if (next.refused) return;
    setSelected(next.selected);
    setNoticeFor(null);
  };
  const openReport = (next: NonNullable<Overlay>) => {
    // Every output listed is of this workspace's problem, so each may be analysed (the spec's client looked
    // for a problem's name in the output's name, a name the user chooses).
    setRefusal(null);
    setOverlay(next);
  };
  const shown = outputs ? searchOutputs(outputs, query) : null;

  return (
    <div className="workspace-outputs bio-outputs">
      <div className="workspace-outputs-bar">
        <input
          type="search"
          className="input"
          aria-label="Search by output ID"
          placeholder="Search by output ID"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <button type="button" className="button secondary" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <div className="bio-analysis-bar">
        <ReportKindChoice
          name="bio-analysis-kind"
          technical={technical}
          onTechnicalChange={setTechnical}
          analyze={{
            disabled: selected.length !== 1,
            onClick: () => openReport({ kind: 'analyze', id: selected[0] }),
          }}
          compare={{
            disabled: selected.length !== 2,
            onClick: () => openReport({ kind: 'compare', ids: [selected[0], selected[1]] }),
          }}
          tone="primary"
        />
      </div>
      <div role="status" className="bio-selection-status">
        {selected.length === 2 && noticeFor === selectionKey ? TWO_SELECTED : ''}
      </div>
      {refusal && (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="applications-table-wrap">
        <table className="applications-table" data-testid="outputs-table">
          <thead>
            <tr>
              {COLUMNS.map((title) => (
                <th key={title || 'select'}>
                  {title || <span className="bio-visually-hidden">Select</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown === null ? (
              <TableMessageRow columns={COLUMNS.length}>Loading…</TableMessageRow>
            ) : shown.length === 0 ? (
              <TableMessageRow columns={COLUMNS.length}>{NO_OUTPUTS}</TableMessageRow>
            ) : (
              shown.map((output) => (
                <OutputRow
                  key={output.id}
                  output={output}
                  selected={selected.includes(output.id)}
                  onToggle={() => toggle(output.id)}
                  onOpen={() => setOpen({ id: output.id, resultType: resultTypeOf(output) })}
                />
              ))
            )}
          </tbody>
        </table>
      </div>
      {overlay?.kind === 'analyze' && (
        <AnalyzeOverlay outputId={overlay.id} technical={technical} onClose={() => setOverlay(null)} />
      )}
      {overlay?.kind === 'compare' && (
        <CompareOverlay
          problem={problem}
          outputIds={overlay.ids}
          technical={technical}
          onClose={() => setOverlay(null)}
        />
      )}
    </div>
  );
}

function OutputRow({
  output,
  selected,
  onToggle,
  onOpen,
}: {
  output: OutputSummary;
  selected: boolean;
  onToggle(): void;
  onOpen(): void;
}) {
  const resultType = resultTypeOf(output);
  const prediction = resultType === 'Prediction';
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.target !== event.currentTarget || (event.key !== 'Enter' && event.key !== ' ')) return;
    event.preventDefault();
    onOpen();
  };
  return (
    <tr
      data-testid="output-row"
      data-output-id={output.id}
      className="bio-output-row"
      tabIndex={0}
      title={`Open output ${output.id}`}
      onClick={onOpen}
      onKeyDown={onKeyDown}
    >
      {/* The checkbox's cell keeps its clicks: selecting is not opening. */}
      <td onClick={(event) => event.stopPropagation()}>
        <input
          type="checkbox"
          checked={selected}
          disabled={prediction}
          title={prediction ? PREDICTION_NOT_SELECTABLE : undefined}
          onChange={onToggle}
          aria-label={`Select output ${output.id}`}
        />
      </td>
      <td>{output.id}</td>
      <td>
        <StatusBadge status={output.status} />
      </td>
      <td>{formatTimestamp(output.created_at)}</td>
      <td>{isOngoing(output.status) ? 'N/A' : formatTimestamp(output.completed_at)}</td>
      <td>{output.trained_model_type ?? '—'}</td>
      <td>{resultType ?? '—'}</td>
    </tr>
  );
}
