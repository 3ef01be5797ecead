import type { RepeatsCurves } from '../../../../components/chart-bands';
import { RepeatedChartView } from '../../../../components/repeated-chart-view';
import type { ChartSpec, OutputDetail } from '../../../../api/outputs';
import { formatMetric } from '../output-rules';
import type { TrainingHistory } from '../result-data';
import { FONT_SIZE, nextFontSize, splitMetrics } from '../report-rules';

/** The parts the brain tumor output detail and the Analyze / Compare overlays share. */

/** A+ / A- (spec section 9: from 15 px, at least 1 px), Print (A4, report.css) and the way back. */
export function ReportToolbar({
  fontSize,
  onFontSize,
  backLabel,
  onBack,
}: {
  fontSize: number;
  onFontSize(size: number): void;
  backLabel: string;
  onBack(): void;
}) {
  return (
    <div className="bio-report-toolbar no-print">
      <button type="button" className="button secondary" onClick={onBack}>
        {backLabel}
      </button>
      <span className="bio-report-font" aria-live="polite">
        <button
          type="button"
          className="button secondary"
          title="Larger text"
          onClick={() => onFontSize(nextFontSize(fontSize, 1))}
        >
          A+
        </button>
        <button
          type="button"
          className="button secondary"
          title="Smaller text"
          disabled={fontSize <= FONT_SIZE.min}
          onClick={() => onFontSize(nextFontSize(fontSize, -1))}
        >
          A-
        </button>
        <span className="muted" data-testid="font-size">
          {fontSize} px
        </span>
      </span>
      <button type="button" className="button secondary" onClick={() => window.print()}>
        Print
      </button>
    </div>
  );
}

/** Overall metrics (accuracy, macro F1, ...) beside the majority-class baseline's. */
export function OverallMetricsTable({
  metrics,
  baseline,
  modelName,
  caption,
}: {
  metrics: Record<string, number>;
  baseline: OutputDetail['baseline'];
  modelName: string | null;
  caption?: string;
}) {
  const { overall } = splitMetrics(metrics);
  const names = Object.keys(overall);
  for (const name of Object.keys(baseline?.metrics ?? {}))
    if (!names.includes(name) && !/^(precision|recall|f1)_/.test(name)) names.push(name);
  if (names.length === 0) return <p className="muted">No Data Available</p>;
  return (
    <table className="metrics-table" data-testid="overall-metrics">
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col">{modelName ?? 'Model'}</th>
          {baseline && <th scope="col">{baseline.name}</th>}
        </tr>
      </thead>
      <tbody>
        {names.map((name) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{formatMetric(overall[name])}</td>
            {baseline && <td>{formatMetric(baseline.metrics[name])}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Precision, recall and F1 of each tumor class. */
export function ClassMetricsTable({ metrics }: { metrics: Record<string, number> }) {
  const { classes } = splitMetrics(metrics);
  if (classes.length === 0) return null;
  return (
    <table className="metrics-table" data-testid="class-metrics">
      <caption>Per class</caption>
      <thead>
        <tr>
          <th scope="col">Class</th>
          <th scope="col">Precision</th>
          <th scope="col">Recall</th>
          <th scope="col">F1</th>
        </tr>
      </thead>
      <tbody>
        {classes.map((row) => (
          <tr key={row.name}>
            <th scope="row">{row.name}</th>
            <td>{formatMetric(row.precision)}</td>
            <td>{formatMetric(row.recall)}</td>
            <td>{formatMetric(row.f1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const HISTORY_CHARTS: { title: string; label: string; series: string[] }[] = [
  { title: 'Loss over Epochs', label: 'loss', series: ['loss', 'val_loss'] },
  { title: 'Accuracy vs Validation Accuracy', label: 'accuracy', series: ['accuracy', 'val_accuracy'] },
];

/**
 * The output's charts; a training history whose chart the output lacks (an older or a running output)
 * is drawn from its epoch values under the worker's own chart titles.
 */
export function trainingCharts(charts: readonly ChartSpec[], history: TrainingHistory | null): ChartSpec[] {
  const drawn: ChartSpec[] = [];
  for (const spec of HISTORY_CHARTS) {
    const series = spec.series.filter((name) => history?.[name]);
    if (series.length === 0 || charts.some((chart) => chart.title === spec.title)) continue;
    const epochs = Math.max(...series.map((name) => history![name].length));
    drawn.push({
      type: 'line',
      title: spec.title,
      label: spec.label,
      series: series.map((name) => ({ name, data: history![name] })),
      categories: Array.from({ length: epochs }, (_, i) => i + 1),
    });
  }
  return [...drawn, ...charts];
}

/**
 * The Chart view: the spec's empty texts ('No Training History', 'Loading plots...', 'No plots available
 * for {app}.'); a training repeated over seeds draws its histories with bands and its confusion matrix
 * summed over the seeds or per seed.
 */
export function TrainingChartsView({
  charts,
  history,
  ongoing,
  appName,
  repeats,
}: {
  charts: readonly ChartSpec[];
  history: TrainingHistory | null;
  ongoing: boolean;
  appName: string;
  repeats?: RepeatsCurves | null;
}) {
  const all = trainingCharts(charts, history);
  return (
    <>
      {!history && !ongoing && <p className="muted">No Training History</p>}
      {all.length === 0 ? (
        <p className="muted">{ongoing ? 'Loading plots...' : `No plots available for ${appName}.`}</p>
      ) : (
        <div className="output-charts bio-charts" data-testid="output-charts">
          {all.map((chart, index) => (
            <RepeatedChartView key={`${chart.title}-${index}`} spec={chart} repeats={repeats} />
          ))}
        </div>
      )}
    </>
  );
}

/** Plain-language sentences as a list (empty: the spec's 'No insights available'). */
export function PlainSentences({ sentences, testId }: { sentences: string[]; testId?: string }) {
  if (sentences.length === 0) return <p className="muted">No insights available</p>;
  return (
    <ul className="bio-plain" data-testid={testId}>
      {sentences.map((sentence) => (
        <li key={sentence}>{sentence}</li>
      ))}
    </ul>
  );
}

/** The dataset the run trained on, labelled synthetic when it is. */
export function DatasetLine({ dataset }: { dataset: OutputDetail['dataset'] }) {
  if (!dataset) return null;
  return (
    <p className="output-dataset" data-testid="output-dataset">
      Dataset: <strong>{dataset.label}</strong>
      {dataset.synthetic && (
        <>
          <span className="synthetic-badge">Synthetic</span>
          <span className="muted">
            {' '}
            Synthetic MRI slices: the metrics show how the model learns, not medical accuracy.
          </span>
        </>
      )}
    </p>
  );
}
