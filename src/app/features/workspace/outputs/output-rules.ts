import type { ChartSpec, JobEvent, OutputDetail, OutputStatus } from '../../../api/outputs';

export const TABS = {
  inference: 'Model Inference',
  pipeline: 'Pipeline',
  results: 'Results',
  visualization: 'Visualization',
} as const;
export type OutputTab = (typeof TABS)[keyof typeof TABS];

/** Model Inference is offered for an output with a stored trained model (either detail view). */
export const offersInference = (detail: { trained_model_path: string | null }): boolean =>
  Boolean(detail.trained_model_path);

/**
 * Spec section 2 (output detail): Model Inference only when a trained model path exists, then Pipeline,
 * Results and Visualization, Pipeline first shown. An output whose layer is 'predictions' (the brain
 * tumor predict results) has only Results.
 */
export function outputTabs(detail: {
  trained_model_path: string | null;
  simplified_app_data: Record<string, unknown> | null;
}): {
  tabs: OutputTab[];
  initial: OutputTab;
} {
  if (detail.simplified_app_data?.output_layer_name === 'predictions')
    return { tabs: [TABS.results], initial: TABS.results };
  const tabs: OutputTab[] = [TABS.pipeline, TABS.results, TABS.visualization];
  if (offersInference(detail)) tabs.unshift(TABS.inference);
  return { tabs, initial: TABS.pipeline };
}

/** Spec section 9: execution time with 2 decimals. */
export function formatExecutionTime(seconds: number | null | undefined): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? `${seconds.toFixed(2)} s` : 'N/A';
}

/**
 * A metric value in the table: up to 4 decimals, integers as they are. A small value keeps 4 significant
 * digits (a portfolio's risk 0.001665 read '0.0017' and an objective of -0.00004 read '-0.0000'); 0.005
 * reads '0.005000' beside '0.5000'.
 */
export function formatMetric(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  if (Number.isInteger(value)) return String(value);
  if (Math.abs(value) < 0.01) return value.toPrecision(4);
  // A demand forecast's MSE (92,773,918.96) read '92773918.9643': large values get separators, 2 decimals.
  if (Math.abs(value) >= 1000)
    return value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return value.toFixed(4);
}

/** What a researcher reads in the metrics table for the worker's metric keys (the keys stay the data). */
const METRIC_LABELS: Record<string, string> = {
  mse: 'MSE',
  rmse: 'RMSE',
  mae: 'MAE',
  mape: 'MAPE (%)',
  r2: 'R²',
  direction_accuracy: 'Direction accuracy',
  accuracy: 'Accuracy',
  precision: 'Precision',
  recall: 'Recall',
  f1: 'F1 score',
  fMeasure: 'F-measure',
  roc_auc: 'ROC AUC',
  pr_auc: 'PR AUC',
  expected_return: 'Expected return',
  risk: 'Risk',
  objective: 'Objective',
};

/** A metric key as a label: the known ones by name, any other one in words ('val_loss' -> 'Val loss'). */
export function metricLabel(name: string): string {
  const known = METRIC_LABELS[name];
  if (known) return known;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

/**
 * The units and meaning of the metrics a table shows, as sentences under it (empty when none of the
 * known families is there). `target` is the predicted column of a forecast (its units are the errors').
 */
export function metricNotes(names: readonly string[], target?: string | null): string[] {
  const has = (...keys: string[]) => keys.some((key) => names.includes(key));
  const notes: string[] = [];
  if (has('mse', 'rmse', 'mae')) {
    const units = target ? `${target}'s units` : "the predicted column's units";
    notes.push(
      `On the test part, in ${units}: RMSE and MAE in those units, MSE in their square; MAPE in percent; ` +
        'R² and direction accuracy as fractions (1 is perfect).',
    );
  }
  if (has('accuracy', 'precision', 'recall', 'f1', 'roc_auc', 'pr_auc'))
    notes.push(
      'On the test part, as fractions of 1; precision, recall and F1 score are those of class 1 (the ' +
        'positive class).',
    );
  if (has('expected_return', 'risk', 'objective'))
    notes.push(
      "Expected return: the selection's summed mean daily return; risk: the variance of its summed daily " +
        'return; objective: risk factor × risk − expected return (lower is better).',
    );
  return notes;
}

/**
 * The order metrics are listed in (the lists: forecasting, classification, portfolio); the
 * stored objects come back in the database's key order (jsonb sorts keys by length), not this one.
 */
const METRIC_ORDER = [
  'mse',
  'rmse',
  'mae',
  'mape',
  'r2',
  'direction_accuracy',
  'accuracy',
  'precision',
  'recall',
  'f1',
  'roc_auc',
  'pr_auc',
  'expected_return',
  'risk',
  'objective',
];
const rank = (name: string) => {
  const index = METRIC_ORDER.indexOf(name);
  return index < 0 ? METRIC_ORDER.length : index;
};

/**
 * The metrics table's rows: each model metric beside the baseline's value of the same name. Keys the
 * worker also reports as 'baseline_{name}' are the baseline's, not rows of their own.
 */
export function metricRows(
  metrics: Record<string, number>,
  baseline: OutputDetail['baseline'],
): { name: string; model: number | undefined; baseline: number | undefined }[] {
  const names = Object.keys(metrics).filter((name) => !name.startsWith('baseline_'));
  for (const name of Object.keys(baseline?.metrics ?? {})) if (!names.includes(name)) names.push(name);
  // fMeasure is the spec's older name of F1 (the worker reports both, equal): one row, not two.
  const alias = names.indexOf('fMeasure');
  if (alias >= 0 && names.includes('f1') && metrics.fMeasure === metrics.f1) names.splice(alias, 1);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return names.map((name) => ({
    name,
    model: metrics[name],
    baseline: baseline?.metrics[name] ?? metrics[`baseline_${name}`],
  }));
}

/** What the live stream has told so far about a running output. */
export interface LiveState {
  status: OutputStatus | null;
  reason: string | null;
  progress: { percent: number; stage: string } | null;
  logs: { level: string; message: string; at: string }[];
  charts: ChartSpec[];
  /** train_loss / test_loss (and any stepped metric) by step, drawn as they arrive. */
  stepped: Record<string, { step: number; value: number }[]>;
  metrics: Record<string, number>;
}

export const EMPTY_LIVE: LiveState = {
  status: null,
  reason: null,
  progress: null,
  logs: [],
  charts: [],
  stepped: {},
  metrics: {},
};

/** Folds one stream event into the live state (charts with the same title replace the earlier one). */
export function applyEvent(state: LiveState, event: JobEvent): LiveState {
  const p = event.payload as Record<string, unknown>;
  switch (event.type) {
    case 'status':
      return {
        ...state,
        status: p.status as OutputStatus,
        reason: typeof p.reason === 'string' ? p.reason : state.reason,
      };
    case 'progress':
      return { ...state, progress: { percent: Number(p.percent), stage: String(p.stage ?? '') } };
    case 'log':
      return {
        ...state,
        logs: [...state.logs, { level: String(p.level), message: String(p.message), at: event.created_at }],
      };
    case 'chart': {
      const chart = (p.chart ?? p) as ChartSpec;
      return { ...state, charts: [...state.charts.filter((c) => c.title !== chart.title), chart] };
    }
    case 'metric': {
      const name = String(p.name);
      const value = Number(p.value);
      if (typeof p.step === 'number') {
        const list = (state.stepped[name] ?? []).filter((point) => point.step !== p.step);
        return { ...state, stepped: { ...state.stepped, [name]: [...list, { step: p.step, value }] } };
      }
      return { ...state, metrics: { ...state.metrics, [name]: value } };
    }
    default:
      return state;
  }
}

/** The stepped metrics seen so far as one live line chart (null before the first). */
export function liveMetricChart(stepped: LiveState['stepped']): ChartSpec | null {
  const names = Object.keys(stepped);
  if (names.length === 0) return null;
  const steps = [...new Set(names.flatMap((n) => stepped[n].map((p) => p.step)))].sort((a, b) => a - b);
  return {
    type: 'line',
    title: 'Live training metrics per epoch',
    label: names.join(', '),
    series: names.map((name) => {
      const byStep = new Map(stepped[name].map((p) => [p.step, p.value]));
      return { name, data: steps.map((step) => byStep.get(step) ?? null) };
    }),
    categories: steps,
  };
}

/**
 * The latest epoch the stream reported and its loss (a stepped metric named like a loss first,
 * train_loss before the others), for the live progress line; null before the first.
 */
export function latestStep(
  stepped: LiveState['stepped'],
): { step: number; name: string; value: number } | null {
  const names = Object.keys(stepped).filter((name) => stepped[name].length > 0);
  if (names.length === 0) return null;
  const weight = (name: string) => (name === 'train_loss' ? 0 : name.includes('loss') ? 1 : 2);
  const name = [...names].sort((a, b) => weight(a) - weight(b))[0];
  const last = stepped[name].reduce((a, b) => (b.step > a.step ? b : a));
  return { step: last.step, name, value: last.value };
}

/** The simulators whose runs are exact (no sampling); the worker's EXACT_SIMULATORS (jobs/support.py). */
const EXACT_SIMULATORS = ['aer_simulator_statevector', 'statevector_simulator'];

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

/**
 * Where a quantum output's circuits ran, in words, from the configuration it ran with (the same rule as the
 * worker's quantum_shots): a real IBM device with its shots; a simulator under a noise model with its
 * shots; the shot-based simulator with its shots; a statevector simulator without noise exactly, no shots.
 * A quantum model with qubits but no device choice (demand forecasting) runs on the exact statevector.
 * Null for a classical model or a configuration that names no quantum device.
 */
export function quantumBackend(appData: Record<string, unknown> | null | undefined): string | null {
  const config = record(record(appData)?.model_configurations);
  if (!config || config.model_type !== 'Quantum') return null;
  const device = record(config.quantum_device);
  const shots =
    typeof config.quantum_shots === 'number' && config.quantum_shots > 0 ? config.quantum_shots : 1024;
  const shotsText = `${shots.toLocaleString('en-US')} shots`;
  if (!device) {
    return typeof config.qubits === 'number' ? 'Exact statevector simulation (no shots)' : null;
  }
  if (device.use_quantum_sim === false) {
    const name = typeof device.act_quantum_device === 'string' ? device.act_quantum_device : 'IBM device';
    return `IBM quantum device ${name}, ${shotsText}`;
  }
  const simulator = typeof device.sim_quantum_device === 'string' ? device.sim_quantum_device : null;
  const noise = device.quantum_noise_model;
  if (typeof noise === 'string' && noise !== '' && noise !== 'None')
    return `${simulator ?? 'Simulator'} with the ${noise} noise model, ${shotsText}`;
  if (simulator === null || EXACT_SIMULATORS.includes(simulator))
    return `${simulator ?? 'Statevector simulator'}, exact (no shots, no noise)`;
  return `${simulator}, ${shotsText}, no noise`;
}

/** The column a forecast predicts, from the configuration it ran with (prediction_feature or _features). */
export function predictedColumn(appData: Record<string, unknown> | null | undefined): string | null {
  const preprocess = record(record(appData)?.preprocess);
  const value = preprocess?.prediction_feature ?? preprocess?.prediction_features;
  const first = Array.isArray(value) ? (value as unknown[])[0] : value;
  return typeof first === 'string' && first !== '' ? first : null;
}

/**
 * A chart whose categories are all metric keys (the test-error bars: 'rmse', 'mae') with them labelled
 * like the metrics table ('RMSE', 'MAE'); any other chart as it is.
 */
export function withMetricCategories(chart: ChartSpec): ChartSpec {
  const { categories } = chart;
  if (categories.length === 0 || !categories.every((c) => typeof c === 'string' && c in METRIC_LABELS))
    return chart;
  return { ...chart, categories: categories.map((c) => metricLabel(String(c))) };
}
