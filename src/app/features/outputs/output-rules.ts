import type { ChartSpec, JobEvent, OutputDetail, OutputStatus } from './api';

/** Spec section 2: the empty text of an output list. */
export const NO_OUTPUTS = 'No outputs found';
/** Spec section 4: while running, or while any output is Ongoing, an output list is read again this often. */
export const OUTPUTS_POLL_MS = 2000;

/** Spec section 4: these three are final; any other status is shown as Ongoing. */
const FINAL: readonly string[] = ['Completed', 'Failed', 'Manual Stop'];

export function isOngoing(status: string): boolean {
  return !FINAL.includes(status);
}

export const TABS = {
  inference: 'Model Inference',
  pipeline: 'Pipeline',
  results: 'Results',
  visualization: 'Visualization',
} as const;
export type OutputTab = (typeof TABS)[keyof typeof TABS];

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
  if (detail.trained_model_path) tabs.unshift(TABS.inference);
  return { tabs, initial: TABS.pipeline };
}

/** Spec section 9: execution time with 2 decimals. */
export function formatExecutionTime(seconds: number | null | undefined): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? `${seconds.toFixed(2)} s` : 'N/A';
}

/** A metric value in the table: up to 4 decimals, integers as they are. */
export function formatMetric(value: number | null | undefined): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
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
