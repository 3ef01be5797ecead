import { useState, type ReactNode } from 'react';
import type { Problem } from '../../../../../engine';
import { repeatsCurvesOf } from '../../../../components/chart-bands';
import { useModalFocus } from '../../../../components/use-modal-focus';
import type { OutputDetail } from '../../../../api/outputs';
import { formatMetric } from '../output-rules';
import { compareOutputs, configurationChanges, SPLITS_DIFFER } from '../list-rules';
import { useOutputDetails } from '../use-output-details';
import { appNameOf, trainingHistoryOf } from '../result-data';
import { FONT_SIZE, metricDifferences, plainLanguageComparison, plainLanguageSummary } from '../report-rules';
import { getAnalysisReport, getComparisonReport, useReport } from './api/analysis-reports';
import { AnalysisText, ComparisonText } from './written-report';
import {
  ClassMetricsTable,
  DatasetLine,
  OverallMetricsTable,
  PlainSentences,
  ReportToolbar,
  TrainingChartsView,
} from './report-parts';

/**
 * The full-screen Analyze and Compare overlays (spec section 2): A+ / A-, Print, 'Back to outputs',
 * Escape closes. Technical shows the numbers; Non-Technical sentences derived from them.
 */

/** What the reader may rely on: the written report states only the output's own results. */
export const GROUNDED_NOTICE =
  "Every number in the written report is one of the output's own results (metrics, baseline, training history, data); the rules that word them are in schemas/analysis.";

function ReportOverlay({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose(): void;
  children: ReactNode;
}) {
  const ref = useModalFocus<HTMLDivElement>(onClose);
  const [fontSize, setFontSize] = useState<number>(FONT_SIZE.initial);
  return (
    <div
      className="bio-overlay bio-print-area"
      role="dialog"
      aria-modal="true"
      aria-labelledby="bio-overlay-title"
      ref={ref}
    >
      <ReportToolbar
        fontSize={fontSize}
        onFontSize={setFontSize}
        backLabel="Back to outputs"
        onBack={onClose}
      />
      <div className="bio-report" style={{ fontSize }} data-testid="report-body">
        <h2 id="bio-overlay-title">{title}</h2>
        <p className="muted bio-report-notice">{GROUNDED_NOTICE}</p>
        {children}
      </div>
    </div>
  );
}

function Loading({ error }: { error: string | null }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : (
    <p className="muted">Loading…</p>
  );
}

const labelOf = (detail: OutputDetail) => `#${detail.id} ${detail.trained_model_type ?? ''}`.trim();

/**
 * One training output: its metrics beside its charts (technical), or plain sentences beside them; the
 * written report (with its recommendations) when the overlay has one.
 */
function OutputReport({
  detail,
  technical,
  written,
}: {
  detail: OutputDetail;
  technical: boolean;
  written?: ReactNode;
}) {
  return (
    <div className="bio-report-columns">
      <section aria-label={technical ? 'Metrics' : 'Summary'}>
        <DatasetLine dataset={detail.dataset} />
        {technical ? (
          <>
            <OverallMetricsTable
              metrics={detail.metrics}
              baseline={detail.baseline}
              modelName={detail.trained_model_type}
            />
            <ClassMetricsTable metrics={detail.metrics} />
          </>
        ) : (
          // the rule-based sentences where the problem has them (brain tumor); the written report below
          plainLanguageSummary(detail).length > 0 && (
            <PlainSentences sentences={plainLanguageSummary(detail)} testId="plain-summary" />
          )
        )}
        {written}
      </section>
      <section aria-label="Charts">
        <TrainingChartsView
          charts={detail.charts}
          history={trainingHistoryOf(detail)}
          ongoing={false}
          appName={appNameOf(detail)}
          repeats={repeatsCurvesOf(detail.output_data)}
        />
      </section>
    </div>
  );
}

export function AnalyzeOverlay({
  outputId,
  technical,
  onClose,
}: {
  outputId: number;
  technical: boolean;
  onClose(): void;
}) {
  const { details, error } = useOutputDetails([outputId]);
  const detail = details?.[0];
  return (
    <ReportOverlay
      title={`${technical ? 'Technical' : 'Non-Technical'} analysis of output ${outputId}`}
      onClose={onClose}
    >
      {detail ? (
        <OutputReport
          detail={detail}
          technical={technical}
          written={<WrittenAnalysis detail={detail} technical={technical} />}
        />
      ) : (
        <Loading error={error} />
      )}
    </ReportOverlay>
  );
}

export function CompareOverlay({
  problem,
  outputIds,
  technical,
  onClose,
}: {
  problem: Problem;
  outputIds: [number, number];
  technical: boolean;
  onClose(): void;
}) {
  const { details, error } = useOutputDetails(outputIds);
  const written = useReport(
    (signal) => getComparisonReport(outputIds, technical, signal),
    `${outputIds.join('-')}-${technical}`,
  );
  return (
    <ReportOverlay
      title={`${technical ? 'Technical' : 'Non-Technical'} comparison of outputs ${outputIds[0]} and ${outputIds[1]}`}
      onClose={onClose}
    >
      {written.report ? <ComparisonText report={written.report} /> : <Loading error={written.error} />}
      {details && details.length === 2 ? (
        <Differences problem={problem} first={details[0]} second={details[1]} technical={technical} />
      ) : (
        <Loading error={error} />
      )}
      {details && details.length === 2 && (
        <div className="bio-compare-columns">
          {details.map((detail) => (
            <section key={detail.id} aria-label={`Output ${detail.id}`}>
              <h3>{labelOf(detail)}</h3>
              <OutputReport detail={detail} technical={technical} />
            </section>
          ))}
        </div>
      )}
    </ReportOverlay>
  );
}

/** The server's written analysis of one output (with its recommendations), in the register asked for. */
function WrittenAnalysis({ detail, technical }: { detail: OutputDetail; technical: boolean }) {
  const written = useReport(
    (signal) => getAnalysisReport(detail.id, appNameOf(detail), technical, signal),
    `${detail.id}-${technical}`,
  );
  return written.report ? (
    <AnalysisText report={written.report} outputId={detail.id} />
  ) : (
    <Loading error={written.error} />
  );
}

/** What differs between the two: the metrics (second − first), the settings, and whether the data did. */
function Differences({
  problem,
  first,
  second,
  technical,
}: {
  problem: Problem;
  first: OutputDetail;
  second: OutputDetail;
  technical: boolean;
}) {
  const sameData = compareOutputs(problem, [first, second]).sameSplit;
  const settings =
    first.app_data && second.app_data ? configurationChanges(problem, first.app_data, second.app_data) : [];
  const [a, b] = [labelOf(first), labelOf(second)];
  return (
    <section className="card bio-differences" aria-label="Differences">
      <h3>Differences</h3>
      {!sameData && <p className="output-compare-note warning">{SPLITS_DIFFER}</p>}
      {technical ? (
        <table className="metrics-table" data-testid="difference-table">
          <thead>
            <tr>
              <th scope="col">Metric</th>
              <th scope="col">{a}</th>
              <th scope="col">{b}</th>
              {/* Which output is subtracted from which, so a negative number reads one way only. */}
              <th scope="col">
                Difference ({b} − {a})
              </th>
            </tr>
          </thead>
          <tbody>
            {metricDifferences(first.metrics, second.metrics).map((row) => (
              <tr key={row.metric}>
                <th scope="row">{row.metric}</th>
                <td>{formatMetric(row.first)}</td>
                <td>{formatMetric(row.second)}</td>
                <td>{signed(row.difference)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <PlainSentences
          sentences={plainLanguageComparison(
            { label: `Output ${a}`, metrics: first.metrics },
            { label: `Output ${b}`, metrics: second.metrics },
          )}
          testId="plain-comparison"
        />
      )}
      {settings.length > 0 && (
        <>
          <h4>
            Settings that differ ({a} → {b})
          </h4>
          <ul data-testid="setting-differences">
            {settings.map((change) => (
              <li key={change.path}>
                <strong>{change.label}</strong>: {change.from} → {change.to}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const signed = (value: number | undefined): string =>
  value === undefined ? '—' : `${value > 0 ? '+' : ''}${formatMetric(value)}`;
