// An output's detail (the binding contract's OutputDetail) derived from its jobs row and its events:
// logs, progress, metrics and charts while it runs, the handler's result once it is Completed.

import { isFinal, JobStatus } from '../jobs/job-states';
import type { JobEventRecord, JobRecord } from '../jobs/jobs-repository';
import type { ChartSpec } from '../jobs/worker-protocol';
import { quantumRunDescription, type BackendLabeller } from './quantum-run';

export interface OutputLog {
  level: string;
  message: string;
  at: string;
}

export interface OutputDetail {
  id: number;
  name: string;
  status: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  application_id: number;
  problem_id: string;
  execution_time: number | null;
  trained_model_type: string | null;
  trained_model_path: string | null;
  app_data: Record<string, unknown> | null;
  simplified_app_data: Record<string, unknown>;
  output_logs: OutputLog[];
  progress: { percent: number; stage: string } | null;
  metrics: Record<string, number>;
  baseline: { name: string; metrics: Record<string, number> } | null;
  charts: ChartSpec[];
  error: string | null;
  /** rows: the dataset file's data rows; rows_used: those the run trained on (null until it says). */
  dataset: {
    label: string;
    synthetic: boolean;
    sha256: string;
    rows: number;
    rows_used: number | null;
  } | null;
  run_record: Record<string, unknown> | null;
  /**
   * Where the quantum circuits ran as the worker's result states it ('trained under the fake_kyiv noise
   * model (exact noisy channel), test predictions on Aer with 1,024 shots'); null without such a result.
   */
  quantum_backend: string | null;
  /**
   * The result type and the per-epoch history (train_loss/test_loss; brain tumor adds loss, accuracy,
   * val_accuracy, val_loss); a brain tumor prediction's output_data as its route stored it
   * (prediction, probabilities, image, model) with training_history null.
   */
  output_data: {
    result_type: ResultType;
    training_history: Record<string, number[]> | null;
    [key: string]: unknown;
  };
}

/** A quantum run's phases (the worker's progress lines' optional `phase`, worker-protocol.schema.json). */
export const RUN_PHASES = ['preparing', 'executing', 'post-processing'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];
const isRunPhase = (value: unknown): value is RunPhase => (RUN_PHASES as readonly unknown[]).includes(value);

export interface TimelineEntry {
  status: string;
  at: string;
  reason: string | null;
  /** While running, a quantum run's phase; null on status changes. */
  phase: RunPhase | null;
}

const iso = (value: string | Date | null): string | null => (value ? new Date(value).toISOString() : null);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const numbers = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];

function numberMap(value: unknown): Record<string, number> {
  if (!isObject(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

/** A relative path under DATA_DIR: outputs/{id}/{file} (null when the run saved no model). */
export function modelPathOf(job: Pick<JobRecord, 'id' | 'result'>): string | null {
  const file = job.result?.trained_model_path;
  return typeof file === 'string' && file ? `outputs/${job.id}/${file}` : null;
}

/**
 * The model the output trains: the result's model ('LSTM', 'VQE', 'Variational Quantum
 * Classifier'...), else the method the body names (training_model_type Quantum, the model, the method).
 */
export type ResultType = 'Training' | 'Prediction';

/**
 * What an output is, for the outputs list and detail: the result's own output_data.result_type (brain
 * tumor's training and prediction outputs), else a brain tumor output by its params (a training body
 * has training_model_type; a prediction's has not), else null (other problems' outputs are trainings
 * but their results do not say so).
 */
export function resultTypeOf(job: Pick<JobRecord, 'kind' | 'params' | 'result'>): ResultType | null {
  const declared = isObject(job.result?.output_data) ? job.result.output_data.result_type : undefined;
  if (declared === 'Training' || declared === 'Prediction') return declared;
  if (job.kind === 'brain-tumor') return 'training_model_type' in job.params ? 'Training' : 'Prediction';
  return null;
}

export function modelTypeOf(job: Pick<JobRecord, 'params' | 'result'>): string | null {
  const result = job.result ?? {};
  if (result.model_type === 'Quantum' && typeof result.model !== 'string') return 'Quantum';
  if (typeof result.model === 'string' && result.model) return result.model;
  const params = job.params;
  if (params.training_model_type === 'Quantum') return 'Quantum';
  // Brain tumor's body names the model in model_name (densenet121, QCNN...).
  for (const key of ['model', 'method', 'model_name', 'training_model_type']) {
    if (typeof params[key] === 'string' && params[key]) return params[key];
  }
  return null;
}

/** The spec's simplified_app_data: the model configurations the run used. */
export function simplifiedAppData(appData: Record<string, unknown> | null): Record<string, unknown> {
  const configurations =
    appData && isObject(appData.model_configurations) ? appData.model_configurations : {};
  return { output_layer_name: null, 'Model Configurations': structuredClone(configurations) };
}

/**
 * A device run's provider report on a progress line as one key: its state, queue position (IBM Quantum
 * Platform reports none, so the worker sends null) and stage (a queued job's names the device's pending
 * jobs).
 */
const providerKey = (payload: Record<string, unknown>): string | null =>
  isObject(payload.provider)
    ? `${String(payload.provider.state)}|${String(payload.provider.queue_position)}|${String(payload.stage)}`
    : null;

/**
 * The status changes (queued, running, the final one with its reason) and, between them, each change of a
 * quantum run's phase from its progress lines (preparing, executing, post-processing; the stage that
 * opened it as the reason) and, on a device, each change of the provider's report ('Queued at the
 * provider (12 jobs pending on ibm_kyiv)', 'Running on ibm_kyiv at the provider').
 */
export function timelineOf(events: readonly JobEventRecord[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  let phase: RunPhase | null = null;
  let provider: string | null = null;
  for (const e of events) {
    const reported = e.type === 'progress' ? providerKey(e.payload) : null;
    if (e.type === 'status') {
      const status = String(e.payload.status);
      const reason = typeof e.payload.reason === 'string' ? e.payload.reason : null;
      entries.push({ status, at: iso(e.created_at)!, reason, phase: null });
    } else if (reported !== null && reported !== provider && isRunPhase(e.payload.phase)) {
      provider = reported;
      phase = e.payload.phase;
      entries.push({
        status: JobStatus.running,
        at: iso(e.created_at)!,
        reason: String(e.payload.stage),
        phase,
      });
    } else if (e.type === 'progress' && isRunPhase(e.payload.phase) && e.payload.phase !== phase) {
      phase = e.payload.phase;
      entries.push({
        status: JobStatus.running,
        at: iso(e.created_at)!,
        reason: String(e.payload.stage),
        phase,
      });
    }
  }
  return entries;
}

/**
 * The output's logs in plain words: the worker's log lines, its error line, and every status change
 * (a failure's reason at level error: bad data, out of memory, time limit, worker lost).
 */
export function logsOf(events: readonly JobEventRecord[]): OutputLog[] {
  const logs: OutputLog[] = [];
  for (const event of events) {
    const at = iso(event.created_at)!;
    const p = event.payload;
    if (event.type === 'log') logs.push({ level: String(p.level), message: String(p.message), at });
    if (event.type === 'error') logs.push({ level: 'error', message: String(p.message), at });
    if (event.type === 'status') {
      const status = String(p.status);
      const reason = typeof p.reason === 'string' ? p.reason : null;
      const level = status === JobStatus.failed ? 'error' : 'info';
      logs.push({ level, message: `Status: ${status}${reason ? `: ${reason}` : ''}`, at });
    }
  }
  return logs;
}

/** The last progress line, or 100 % once Completed; null before any. */
function progressOf(job: JobRecord, events: readonly JobEventRecord[]) {
  const last = events.filter((e) => e.type === 'progress').at(-1);
  if (job.status === JobStatus.completed) return { percent: 100, stage: 'Completed' };
  return last ? { percent: Number(last.payload.percent), stage: String(last.payload.stage) } : null;
}

/** The result's metrics, else the latest value of each metric line (while it runs, or when it failed). */
function metricsOf(result: Record<string, unknown> | null, events: readonly JobEventRecord[]) {
  if (result && isObject(result.metrics)) return numberMap(result.metrics);
  const metrics: Record<string, number> = {};
  for (const e of events) if (e.type === 'metric') metrics[String(e.payload.name)] = Number(e.payload.value);
  return metrics;
}

/** The result's charts, else the chart lines so far (a chart with the same title replaces the earlier). */
function chartsOf(result: Record<string, unknown> | null, events: readonly JobEventRecord[]): ChartSpec[] {
  if (result && Array.isArray(result.charts)) return result.charts as ChartSpec[];
  const byTitle = new Map<string, ChartSpec>();
  for (const e of events) {
    if (e.type !== 'chart' || !isObject(e.payload.chart)) continue;
    const chart = e.payload.chart as unknown as ChartSpec;
    byTitle.set(chart.title, chart);
  }
  return [...byTitle.values()];
}

/** Train and test loss per epoch: the result's losses, else the metric lines with a step. */
function historyOf(result: Record<string, unknown> | null, events: readonly JobEventRecord[]) {
  if (result && isObject(result.losses)) {
    return { train_loss: numbers(result.losses.train), test_loss: numbers(result.losses.test) };
  }
  const series = (name: string) =>
    events
      .filter((e) => e.type === 'metric' && e.payload.name === name && typeof e.payload.step === 'number')
      .sort((a, b) => Number(a.payload.step) - Number(b.payload.step))
      .map((e) => Number(e.payload.value));
  const train = series('train_loss');
  const test = series('test_loss');
  return train.length || test.length ? { train_loss: train, test_loss: test } : null;
}

function outputDataOf(
  job: JobRecord,
  result: Record<string, unknown> | null,
  events: readonly JobEventRecord[],
): OutputDetail['output_data'] {
  const stored = isObject(result?.output_data) ? result.output_data : {};
  const resultType = resultTypeOf(job) ?? 'Training';
  if (resultType === 'Prediction') return { ...stored, result_type: resultType, training_history: null };
  const losses = historyOf(result, events);
  const perEpoch = isObject(stored.training_history)
    ? Object.fromEntries(
        Object.entries(stored.training_history).map(([name, values]) => [name, numbers(values)]),
      )
    : {};
  const history = { ...perEpoch, ...(losses ?? {}) };
  return {
    ...stored,
    result_type: resultType,
    training_history: Object.keys(history).length > 0 ? history : null,
  };
}

function datasetOf(job: JobRecord): OutputDetail['dataset'] {
  const given = isObject(job.extension?.dataset) ? job.extension.dataset : {};
  const fromResult = isObject(job.result?.dataset) ? job.result.dataset : {};
  const facts = { ...given, ...fromResult };
  if (typeof facts.sha256 !== 'string') return null;
  return {
    label: String(facts.label ?? ''),
    synthetic: facts.synthetic === true,
    sha256: facts.sha256,
    rows: Number(given.row_count ?? 0),
    rows_used: typeof fromResult.rows_used === 'number' ? fromResult.rows_used : null,
  };
}

function baselineOf(result: Record<string, unknown> | null): OutputDetail['baseline'] {
  const baseline = result?.baseline;
  if (!isObject(baseline)) return null;
  return { name: String(baseline.name ?? ''), metrics: numberMap(baseline.metrics) };
}

export function outputDetail(
  job: JobRecord,
  events: readonly JobEventRecord[],
  backendLabel?: BackendLabeller,
): OutputDetail {
  const result = isFinal(job.status) ? job.result : null;
  return {
    id: job.id,
    name: job.name ?? `${job.kind} #${job.id}`,
    status: job.status,
    created_at: iso(job.created_at)!,
    started_at: iso(job.started_at),
    completed_at: iso(job.finished_at),
    application_id: Number(job.application_id),
    problem_id: job.kind,
    execution_time: job.execution_time === null ? null : Number(job.execution_time),
    trained_model_type: modelTypeOf(job),
    trained_model_path: modelPathOf(job),
    app_data: job.app_data,
    simplified_app_data: simplifiedAppData(job.app_data),
    output_logs: logsOf(events),
    progress: progressOf(job, events),
    metrics: metricsOf(result, events),
    baseline: baselineOf(result),
    charts: chartsOf(result, events),
    error: job.error,
    dataset: datasetOf(job),
    run_record: isObject(result?.run_record) ? result.run_record : null,
    quantum_backend:
      job.status === JobStatus.completed ? quantumRunDescription(job.kind, result, backendLabel) : null,
    output_data: outputDataOf(job, result, events),
  };
}
