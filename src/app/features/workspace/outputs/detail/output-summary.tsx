import type { ReactNode } from 'react';
import { StatusBadge } from '../../../../components/status-badge';
import type { OutputDetail } from '../../../../api/outputs';
import { DeleteOutputButton } from '../delete-output-button';
import { exportable, ExportRunButtons } from '../export-run-buttons';
import { StopButton } from '../stop-button';
import { FailureReason, LiveProgress, OutputFacts, type LiveOutput } from './output-parts';

export interface OutputSummaryProps {
  /** The output as useLiveOutput follows it. */
  output: LiveOutput;
  /** Facts listed after Status (dt/dd pairs), before the run's own facts. */
  facts?: ReactNode;
  /** Buttons after Stop (Stop shows while the output is Ongoing). */
  actions?: ReactNode;
  /** Offers Delete Output; runs once the output is deleted (the caller leaves the detail). */
  onDeleted?: () => void;
  /** Leave the buttons out of a printed report. */
  noPrintActions?: boolean;
  /** The view's own body (sub-tabs, report), once the detail is read. */
  children(detail: OutputDetail): ReactNode;
}

/**
 * The head of one output in the workspace (the Outputs tab and the brain tumor outputs): a read failure,
 * 'Loading…' until the detail is read, then the summary card (Status, the caller's facts, created,
 * completed, model type, execution time; Stop while Ongoing, the caller's buttons and, for a completed
 * training, the downloads of the run as code), the failure reason,
 * the live progress while Ongoing, and the caller's body.
 */
export function OutputSummary({
  output,
  facts,
  actions,
  noPrintActions = false,
  onDeleted,
  children,
}: OutputSummaryProps) {
  const { detail, live, status, ongoing, error, stopping, stop } = output;
  return (
    <>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!detail || !status ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <div className="card output-summary">
            <dl className="detail-summary">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={status} />
              </dd>
              {facts}
              <OutputFacts detail={detail} ongoing={ongoing} />
            </dl>
            {(ongoing || actions || onDeleted || exportable(detail)) && (
              <div className={noPrintActions ? 'detail-actions no-print' : 'detail-actions'}>
                {ongoing && <StopButton onStop={() => void stop()} stopping={stopping} />}
                {actions}
                <ExportRunButtons detail={detail} />
                {onDeleted && <DeleteOutputButton outputId={detail.id} onDeleted={onDeleted} />}
              </div>
            )}
          </div>
          {status === 'Failed' && <FailureReason detail={detail} live={live} />}
          {ongoing && <LiveProgress live={live} />}
          {children(detail)}
        </>
      )}
    </>
  );
}
