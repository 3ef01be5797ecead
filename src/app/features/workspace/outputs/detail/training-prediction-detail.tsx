import { useEffect, useState } from 'react';
import { lookupField, type Problem } from '../../../../../engine';
import { repeatsCurvesOf } from '../../../../components/chart-bands';
import { Tabs } from '../../../../components/tabs';
import { getOutputDetail, type OutputDetail } from '../../../../api/outputs';
import { outputView, ResultLogs, useLiveOutput } from './output-parts';
import { formatMetric } from '../output-rules';
import { OutputSummary } from './output-summary';
import {
  appNameOf,
  finalMetricsOf,
  predictionOf,
  resultTypeOf,
  runSetupOf,
  trainingHistoryOf,
  type PredictionData,
  type ResultType,
} from '../result-data';
import { asPercent, FONT_SIZE, predictionInsights, ranked, RESEARCH_NOTICE } from '../report-rules';
import {
  ClassMetricsTable,
  DatasetLine,
  OverallMetricsTable,
  PlainSentences,
  ReportToolbar,
  TrainingChartsView,
} from '../overlays/report-parts';
import { RepeatsSummary } from './repeats-summary';

type TrainingTab = 'performance' | 'chart';
type PredictionTab = 'diagnosis' | 'insights';
const TRAINING_TABS: { id: TrainingTab; title: string }[] = [
  { id: 'performance', title: 'Performance Analysis' },
  { id: 'chart', title: 'Chart' },
];
const PREDICTION_TABS: { id: PredictionTab; title: string }[] = [
  { id: 'diagnosis', title: 'Diagnosis Summary' },
  { id: 'insights', title: 'Detailed Insights' },
];

interface Props {
  problem: Problem;
  outputId: number;
  /** The list's result type, used until the detail tells its own. */
  listedResultType: ResultType | null;
  onBack(): void;
}

/**
 * One brain tumor output (spec section 2, output detail): a training has Performance Analysis and
 * Chart, a prediction Diagnosis Summary and Detailed Insights; Print, A+ / A-, 'All Outputs' back.
 */
export function TrainingPredictionDetail({ problem, outputId, listedResultType, onBack }: Props) {
  const output = useLiveOutput(outputId);
  const { detail } = output;
  const [fontSize, setFontSize] = useState<number>(FONT_SIZE.initial);
  const resultType = (detail && resultTypeOf(detail.output_data)) ?? listedResultType;

  return (
    <div className="bio-output bio-print-area">
      <ReportToolbar fontSize={fontSize} onFontSize={setFontSize} backLabel="All Outputs" onBack={onBack} />
      <div className="bio-report" style={{ fontSize }}>
        <h2>{detail ? detail.name : `Output ${outputId}`}</h2>
        <OutputSummary
          output={output}
          noPrintActions
          onDeleted={onBack}
          facts={
            <>
              <dt>Result Type</dt>
              <dd>{resultType ?? '—'}</dd>
            </>
          }
        >
          {(shown) =>
            resultType === 'Prediction' ? (
              <PredictionTabs detail={shown} />
            ) : (
              <TrainingTabs
                problem={problem}
                detail={withLiveView(shown, outputView(shown, output.live, output.ongoing))}
                ongoing={output.ongoing}
              />
            )
          }
        </OutputSummary>
      </div>
    </div>
  );
}

/** While Ongoing, the live stream's charts, metrics and logs stand in for the stored ones. */
const withLiveView = (detail: OutputDetail, view: ReturnType<typeof outputView>): OutputDetail => ({
  ...detail,
  charts: view.charts,
  metrics: view.metrics,
  output_logs: view.logs,
});

function TrainingTabs({
  problem,
  detail,
  ongoing,
}: {
  problem: Problem;
  detail: OutputDetail;
  ongoing: boolean;
}) {
  const [tab, setTab] = useState<TrainingTab>('performance');
  return (
    <Tabs label="Output details" idPrefix="bio-output" tabs={TRAINING_TABS} selected={tab} onSelect={setTab}>
      {tab === 'performance' ? (
        <PerformanceAnalysis problem={problem} detail={detail} />
      ) : (
        <TrainingChartsView
          charts={detail.charts}
          history={trainingHistoryOf(detail)}
          ongoing={ongoing}
          appName={appNameOf(detail)}
          repeats={repeatsCurvesOf(detail.output_data)}
        />
      )}
    </Tabs>
  );
}

/** A field's title and its value's label (x-field labels) from the problem's schema, else the raw words. */
function describeField(
  problem: Problem,
  form: 'dataset' | 'model_configurations',
  key: string,
  value: unknown,
) {
  const schema = problem.forms[form]?.schema;
  const field = schema ? lookupField(schema, [key]) : undefined;
  const title = typeof field?.schema.title === 'string' ? field.schema.title : key;
  const options = field?.schema.enum;
  const labels = (field?.schema as { 'x-field'?: { labels?: string[] } } | undefined)?.['x-field']?.labels;
  const index = Array.isArray(options) ? options.indexOf(value as never) : -1;
  const text =
    index >= 0 && labels?.[index] ? labels[index] : Array.isArray(value) ? value.join(', ') : String(value);
  return { title, text };
}

function PerformanceAnalysis({ problem, detail }: { problem: Problem; detail: OutputDetail }) {
  const setup = runSetupOf(detail);
  // The final metrics the run reported; only those that differ from the test metrics get their own table.
  const final = finalMetricsOf(detail);
  const finalOnly = Object.entries(final).filter(([name, value]) => detail.metrics[name] !== value);
  const configuration = Object.entries(setup.configuration).filter(
    ([, value]) => value !== undefined && value !== null && value !== '',
  );
  return (
    <div className="bio-performance">
      <DatasetLine dataset={detail.dataset} />
      <dl className="detail-summary" data-testid="run-setup">
        <dt>Training range</dt>
        <dd>{setup.range ? `Slices ${setup.range.from} to ${setup.range.to}` : '—'}</dd>
        <dt>Split</dt>
        <dd>{setup.split ? describeField(problem, 'dataset', 'split', setup.split).text : '—'}</dd>
      </dl>
      <OverallMetricsTable
        metrics={detail.metrics}
        baseline={detail.baseline}
        modelName={detail.trained_model_type}
        caption={
          Object.keys(final).length > 0 && finalOnly.length === 0 ? 'Test metrics (final)' : 'Test metrics'
        }
      />
      <ClassMetricsTable metrics={detail.metrics} />
      <RepeatsSummary detail={detail} />
      {finalOnly.length > 0 && (
        <table className="metrics-table" data-testid="final-metrics">
          <caption>Final metrics</caption>
          <tbody>
            {finalOnly.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td>{formatMetric(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Model configuration</h3>
      {configuration.length === 0 ? (
        <p className="muted">No Data Available</p>
      ) : (
        <dl className="detail-summary" data-testid="model-configuration">
          {configuration.map(([key, value]) => {
            const { title, text } = describeField(problem, 'model_configurations', key, value);
            return (
              <div key={key} className="bio-config-row">
                <dt>{title}</dt>
                <dd>{text}</dd>
              </div>
            );
          })}
        </dl>
      )}
      <h3>Result logs</h3>
      <ResultLogs logs={detail.output_logs} />
    </div>
  );
}

/** The training output a prediction's model comes from (its dataset and test metrics), when it can be read. */
function useTrainingOutput(outputId: number | null): OutputDetail | null {
  const [training, setTraining] = useState<OutputDetail | null>(null);
  useEffect(() => {
    if (outputId === null) return;
    let cancelled = false;
    getOutputDetail(outputId).then(
      (found) => !cancelled && setTraining(found),
      () => undefined, // deleted or not readable: the prediction still shows, without its model's facts
    );
    return () => {
      cancelled = true;
    };
  }, [outputId]);
  return training;
}

function PredictionTabs({ detail }: { detail: OutputDetail }) {
  const [tab, setTab] = useState<PredictionTab>('diagnosis');
  const prediction = predictionOf(detail);
  const training = useTrainingOutput(prediction?.model?.outputId ?? null);
  return (
    <Tabs
      label="Output details"
      idPrefix="bio-output"
      tabs={PREDICTION_TABS}
      selected={tab}
      onSelect={setTab}
    >
      {tab === 'diagnosis' ? (
        <DiagnosisSummary detail={detail} prediction={prediction} training={training} />
      ) : (
        <DetailedInsights prediction={prediction} training={training} />
      )}
    </Tabs>
  );
}

function DiagnosisSummary({
  detail,
  prediction,
  training,
}: {
  detail: OutputDetail;
  prediction: PredictionData | null;
  training: OutputDetail | null;
}) {
  if (!prediction) return <p className="muted">No Data Available</p>;
  const dataset = detail.dataset ?? training?.dataset ?? null;
  return (
    <div className="bio-diagnosis">
      <p className="bio-prediction" data-testid="prediction">
        Prediction: <strong>{prediction.prediction}</strong>
      </p>
      <table className="metrics-table" data-testid="probabilities">
        <caption>Probabilities</caption>
        <tbody>
          {ranked(prediction.probabilities).map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{asPercent(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="detail-summary">
        <dt>Model</dt>
        <dd data-testid="prediction-model">
          {prediction.model
            ? `${prediction.model.name}${prediction.model.outputId === null ? '' : `, trained by output ${prediction.model.outputId}`}`
            : '—'}
        </dd>
        <dt>Image</dt>
        <dd>
          {prediction.image
            ? `${prediction.image.name}${prediction.image.kind ? ` (${prediction.image.kind})` : ''}`
            : '—'}
        </dd>
      </dl>
      <p className="notice bio-research-notice" role="note" data-testid="research-notice">
        {dataset?.synthetic
          ? `${RESEARCH_NOTICE} The model was trained on synthetic MRI data (${dataset.label}).`
          : RESEARCH_NOTICE}
      </p>
    </div>
  );
}

function DetailedInsights({
  prediction,
  training,
}: {
  prediction: PredictionData | null;
  training: OutputDetail | null;
}) {
  return (
    <div className="bio-insights">
      <PlainSentences
        sentences={prediction ? predictionInsights(prediction, training) : []}
        testId="insights"
      />
      <h3>Recommendations</h3>
      <p className="muted">No recommendations available</p>
    </div>
  );
}
