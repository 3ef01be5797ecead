import { isPlainObject } from '../../../../engine';
import type { ChartSpec, OutputDetail } from '../../../api/outputs';

/**
 * What the brain tumor Outputs tab reads from the output list and an output's detail, read loosely
 * (contract of issue #13: result_type on list items, output_data of a training or a prediction): a
 * field the server does not send yet is absent here, never an error.
 */

export type ResultType = 'Training' | 'Prediction';

/** The result type of a list item or of an output's output_data; null when it has none. */
export function resultTypeOf(holder: unknown): ResultType | null {
  const value = isPlainObject(holder) ? holder.result_type : undefined;
  return value === 'Training' || value === 'Prediction' ? value : null;
}

const outputData = (detail: Pick<OutputDetail, 'output_data'>): Record<string, unknown> =>
  isPlainObject(detail.output_data) ? (detail.output_data as Record<string, unknown>) : {};

const numberList = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)) : [];

function numberMap(value: unknown): Record<string, number> {
  if (!isPlainObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
    ),
  );
}

/** Spec section 3: training_history is a map of series name (loss, accuracy, val_accuracy, ...) to epoch values. */
export type TrainingHistory = Record<string, number[]>;

/** The training history's non-empty series; null when there are none. */
export function trainingHistoryOf(detail: Pick<OutputDetail, 'output_data'>): TrainingHistory | null {
  const history = outputData(detail).training_history;
  if (!isPlainObject(history)) return null;
  const series = Object.entries(history)
    .map(([name, values]) => [name, numberList(values)] as const)
    .filter(([, values]) => values.length > 0);
  return series.length > 0 ? Object.fromEntries(series) : null;
}

/** The final metrics the run reported beside its metrics (output_data.final_metrics); {} when none. */
export function finalMetricsOf(detail: Pick<OutputDetail, 'output_data'>): Record<string, number> {
  return numberMap(outputData(detail).final_metrics);
}

export interface PredictionData {
  prediction: string;
  probabilities: Record<string, number>;
  image: { name: string; kind: string | null } | null;
  /** The model that answered, and the training output it comes from. */
  model: { name: string; outputId: number | null } | null;
}

/** A prediction output's answer; null when output_data holds none. */
export function predictionOf(detail: Pick<OutputDetail, 'output_data'>): PredictionData | null {
  const data = outputData(detail);
  if (typeof data.prediction !== 'string' || !data.prediction) return null;
  const image = isPlainObject(data.image) ? data.image : null;
  const model = isPlainObject(data.model) ? data.model : null;
  const modelName = model && typeof model.model_name === 'string' ? model.model_name : null;
  return {
    prediction: data.prediction,
    probabilities: numberMap(data.probabilities),
    image:
      image && typeof image.name === 'string'
        ? { name: image.name, kind: typeof image.kind === 'string' ? image.kind : null }
        : null,
    model: modelName
      ? {
          name: modelName,
          outputId: typeof model?.output_id === 'number' ? model.output_id : null,
        }
      : null,
  };
}

export interface Confusion {
  /** The true classes (rows). */
  actual: string[];
  /** The predicted classes (columns). */
  predicted: string[];
  counts: number[][];
}

/**
 * The first confusion matrix among the charts: one series per true class named 'true {class}' (the
 * worker's confusion_matrix_chart), its counts per predicted class in the categories' order.
 */
export function confusionOf(charts: readonly ChartSpec[]): Confusion | null {
  const chart = charts.find((c) => c.type === 'confusion_matrix');
  if (!chart || chart.series.length === 0) return null;
  return {
    actual: chart.series.map((s) => s.name.replace(/^true\s+/i, '')),
    predicted: chart.categories.map(String),
    counts: chart.series.map((s) => s.data.map((v) => (typeof v === 'number' ? v : 0))),
  };
}

/** The application's name: the output's name is '{app_name} #{id}'. */
export function appNameOf(detail: Pick<OutputDetail, 'id' | 'name'>): string {
  const suffix = ` #${detail.id}`;
  return detail.name.endsWith(suffix) ? detail.name.slice(0, -suffix.length) : detail.name;
}

export interface RunSetup {
  /** 1-based inclusive slice range the run trained on. */
  range: { from: number; to: number } | null;
  split: string | null;
  configuration: Record<string, unknown>;
}

/** The training range, split and model configuration the output ran with (its app_data). */
export function runSetupOf(detail: Pick<OutputDetail, 'app_data' | 'simplified_app_data'>): RunSetup {
  const appData = isPlainObject(detail.app_data) ? detail.app_data : {};
  const dataset = isPlainObject(appData.dataset) ? appData.dataset : {};
  const range = isPlainObject(dataset.training_range) ? dataset.training_range : {};
  const from = range.from_index;
  const to = range.to_index;
  const simplified = detail.simplified_app_data?.['Model Configurations'];
  const configuration = isPlainObject(appData.model_configurations)
    ? appData.model_configurations
    : isPlainObject(simplified)
      ? simplified
      : {};
  return {
    range: typeof from === 'number' && typeof to === 'number' ? { from, to } : null,
    split: typeof dataset.split === 'string' ? dataset.split : null,
    configuration,
  };
}
