// An output's detail (the binding contract's OutputDetail) derived from its jobs row and its events:
// logs, progress, metrics and charts while it runs, the handler's result once it is Completed.

import { isPlainObject } from '../../src/engine';
import { definedMetrics, jobResultOf, type JobResult } from '../jobs/job-result';
import { isFinal, JobStatus } from '../jobs/job-states';
import type { JobEventRecord, JobRecord } from '../jobs/jobs-repository';
import type { ChartSpec } from '../jobs/worker-protocol';
import { quantumRunDescription, type BackendLabeller } from './quantum-run';
import { isTokenKey, redactDeviceTokens } from './device-token-redaction';

/** Other features mask a token through this file (the outputs feature's declared API). */
export { isTokenKey, redactDeviceTokens };

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
   * The result type and the per-epoch history (train_loss/test_loss, plus whatever series the result's
   * training_history names); a prediction's output_data as its route stored it (prediction,
   * probabilities, image, model) with training_history null. A training's `repeats` is the result's
   * repeated-seed statistics (absent for a single run).
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

/** A relative path under DATA_DIR: outputs/{id}/{file} (null when the run saved no model). */
export function modelPathOf(job: Pick<JobRecord, 'id' | 'result'>): string | null {
  const file = jobResultOf(job)?.trained_model_path;
  return file ? `outputs/${job.id}/${file}` : null;
}

/**
 * The model the output trains: the result's model ('LSTM', 'VQE', 'Variational Quantum
 * Classifier'...), else the method the body names (training_model_type Quantum, the model, the method).
 */
export type ResultType = 'Training' | 'Prediction';

/**
 * What an output is, for the outputs list and detail: the result's own output_data.result_type, else,
 * for a problem that predicts (its file has a predict block, so its outputs are trainings or
 * predictions), a Training (a prediction's output is stored with its result); else null (outputs of
 * problems without predictions are all trainings, and the spec leaves their type out).
 */
export function resultTypeOf(job: Pick<JobRecord, 'result'>, problemPredicts: boolean): ResultType | null {
  const declared = jobResultOf(job)?.output_data?.result_type;
  if (declared) return declared;
  return problemPredicts ? 'Training' : null;
}

export function modelTypeOf(job: Pick<JobRecord, 'params' | 'result'>): string | null {
  const result = jobResultOf(job);
  if (result) return result.model;
  const params = job.params;
  if (params.training_model_type === 'Quantum') return 'Quantum';
  // Before the run ends: the model the body names (model, method or model_name, by problem).
  for (const key of ['model', 'method', 'model_name', 'training_model_type']) {
    if (typeof params[key] === 'string' && params[key]) return params[key];
  }
  return null;
}

/** The spec's simplified_app_data: the model configurations the run used. */
export function simplifiedAppData(appData: Record<string, unknown> | null): Record<string, unknown> {
  const configurations =
    appData && isPlainObject(appData.model_configurations) ? appData.model_configurations : {};
  return { output_layer_name: null, 'Model Configurations': structuredClone(configurations) };
}

/**
 * A device run's provider report on a progress line as one key: its state, queue position (IBM Quantum
 * Platform reports none, so the worker sends null) and stage (a queued job's names the device's pending
 * jobs).
 */
const providerKey = (payload: Record<string, unknown>): string | null =>
  isPlainObject(payload.provider)
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
function metricsOf(result: JobResult | null, events: readonly JobEventRecord[]) {
  if (result?.metrics) return definedMetrics(result.metrics);
  const metrics: Record<string, number> = {};
  for (const e of events) if (e.type === 'metric') metrics[String(e.payload.name)] = Number(e.payload.value);
  return metrics;
}

/** The result's charts, else the chart lines so far (a chart with the same title replaces the earlier). */
function chartsOf(result: JobResult | null, events: readonly JobEventRecord[]): ChartSpec[] {
  if (result?.charts) return result.charts;
  const byTitle = new Map<string, ChartSpec>();
  for (const e of events) {
    if (e.type !== 'chart' || !isPlainObject(e.payload.chart)) continue;
    const chart = e.payload.chart as unknown as ChartSpec;
    byTitle.set(chart.title, chart);
  }
  return [...byTitle.values()];
}

/** Train and test loss per epoch: the result's losses, else the metric lines with a step. */
function historyOf(result: JobResult | null, events: readonly JobEventRecord[]) {
  if (result?.losses) return { train_loss: result.losses.train, test_loss: result.losses.test };
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
  result: JobResult | null,
  events: readonly JobEventRecord[],
): OutputDetail['output_data'] {
  const stored = result?.output_data;
  const resultType = stored?.result_type ?? 'Training';
  if (resultType === 'Prediction') return { ...stored, result_type: resultType, training_history: null };
  const losses = historyOf(result, events);
  const history = { ...(stored?.training_history ?? {}), ...(losses ?? {}) };
  return {
    ...stored,
    result_type: resultType,
    training_history: Object.keys(history).length > 0 ? history : null,
    // A run repeated with consecutive seeds: each metric's mean, sd and 95% interval, each repeat's
    // metrics and baseline, the loss band (metrics, baseline and history above are then the means).
    ...(result?.repeats ? { repeats: result.repeats } : {}),
  };
}

/** The dataset the envelope gave (while it runs), with what the result says the run used. */
function datasetOf(job: JobRecord, result: JobResult | null): OutputDetail['dataset'] {
  const given = isPlainObject(job.extension?.dataset) ? job.extension.dataset : {};
  const used = result?.dataset;
  const sha256 = used?.sha256 ?? given.sha256;
  if (typeof sha256 !== 'string') return null;
  return {
    label: used?.label ?? String(given.label ?? ''),
    synthetic: used?.synthetic ?? given.synthetic === true,
    sha256,
    rows: Number(given.row_count ?? 0),
    rows_used: used?.rows_used ?? null,
  };
}

function baselineOf(result: JobResult | null): OutputDetail['baseline'] {
  const baseline = result?.baseline;
  return baseline ? { name: baseline.name, metrics: definedMetrics(baseline.metrics) } : null;
}

export function outputDetail(
  job: JobRecord,
  events: readonly JobEventRecord[],
  backendLabel?: BackendLabeller,
): OutputDetail {
  const result = isFinal(job.status) ? jobResultOf(job) : null;
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
    app_data: redactDeviceTokens(job.app_data),
    simplified_app_data: redactDeviceTokens(simplifiedAppData(job.app_data)),
    output_logs: logsOf(events),
    progress: progressOf(job, events),
    metrics: metricsOf(result, events),
    baseline: baselineOf(result),
    charts: chartsOf(result, events),
    error: job.error,
    dataset: datasetOf(job, result),
    run_record: redactDeviceTokens(result?.run_record ?? null),
    quantum_backend: job.status === JobStatus.completed ? quantumRunDescription(result, backendLabel) : null,
    output_data: outputDataOf(result, events),
  };
}
