// The facts of one output, read from its result through the result contract (jobResultOf) and the
// detail derived from it. The one place that knows where a result keeps what.

import { isPlainObject } from '../../src/engine';
import { jobResultOf, type JobResult } from '../jobs/job-result';
import type { JobRecord } from '../jobs/jobs-repository';
import type { OutputDetail } from '../outputs/output-detail';
import { FactBuilder, formatNumber, type FactSet } from './facts';
import type { ConvergenceLimits, MetricRule } from './rule-set';

export type AnalysisJob = Pick<JobRecord, 'id' | 'kind' | 'params' | 'result' | 'app_data' | 'extension'>;

export interface AnalysisSubject {
  job: AnalysisJob;
  detail: OutputDetail;
  /** The problem's name as its file states it ('Stock Price Prediction'). */
  problemName: string;
}

const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** 'A', 'A and B', 'A, B and C'. */
export const listed = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** The facts of `subject` under the result type's metric and convergence rules. */
export function outputFacts(
  subject: AnalysisSubject,
  metrics: Record<string, MetricRule>,
  limits: ConvergenceLimits,
): FactSet {
  const facts = new FactBuilder();
  // a result that breaks the contract (an older worker's) gives only the detail's facts
  const result = jobResultOf(subject.job);
  runFacts(facts, subject, result);
  dataFacts(facts, subject, result);
  metricFacts(facts, subject.detail, metrics, result);
  convergenceFacts(facts, subject.detail, limits);
  confusionFacts(facts, result);
  quantumFacts(facts, subject, result);
  selectionFacts(facts, result);
  predictionFacts(facts, subject.detail);
  return facts.facts;
}

function runFacts(facts: FactBuilder, { detail, problemName }: AnalysisSubject, result: JobResult | null) {
  facts.number('run.id', detail.id, 'integer');
  facts.text('run.name', detail.name);
  facts.text('run.problem', problemName);
  facts.text('run.model', detail.trained_model_type);
  const modelType = result?.model_type;
  facts.text('run.model_type', modelType);
  facts.flag('run.quantum', modelType === 'Quantum');
  facts.number('run.execution_time', detail.execution_time, 'decimal');
  facts.text('run.result_type', detail.output_data.result_type);
  facts.text('baseline.name', detail.baseline?.name);
}

function dataFacts(facts: FactBuilder, { job, detail }: AnalysisSubject, result: JobResult | null) {
  facts.text('data.label', detail.dataset?.label);
  facts.flag('data.synthetic', detail.dataset?.synthetic);
  facts.number('data.rows', detail.dataset?.rows, 'integer');
  facts.number('data.rows_used', detail.dataset?.rows_used, 'integer');
  // the first 12 characters name the file well enough in a sentence; the detail keeps the whole hash
  facts.text('data.hash', detail.dataset?.sha256.slice(0, 12));
  facts.number('data.seed', num(result?.seed) ?? num(job.extension?.seed), 'integer');
  const params = job.params;
  const trainShare = num(params.train_test_split);
  const testShare = num(params.test_ratio);
  if (trainShare !== null) {
    facts.number('data.train_share', trainShare, 'ratio');
    facts.number('data.test_share', 1 - trainShare, 'ratio');
  } else if (testShare !== null) {
    facts.number('data.train_share', 1 - testShare, 'ratio');
    facts.number('data.test_share', testShare, 'ratio');
  }
  const training = result?.training_data ?? {};
  facts.number('data.train_rows', num(training.train_rows) ?? num(training.train_slices), 'integer');
  facts.number('data.test_rows', num(training.test_rows) ?? num(training.held_out_slices), 'integer');
  facts.number('data.window', num(training.window), 'integer');
  // a forecaster keeps the epoch with the lowest loss on held-out training windows (0: untrained)
  facts.number('conv.kept_epoch', num(training.kept_epoch), 'integer');
  facts.text(
    'data.target',
    typeof training.prediction_feature === 'string' ? training.prediction_feature : null,
  );
  const config = isPlainObject(training.config) ? training.config : {};
  facts.text('data.target', typeof config.target === 'string' ? config.target : null);
  facts.number(
    'data.features',
    Array.isArray(training.features) ? training.features.length : null,
    'integer',
  );
  facts.number('data.observations', num(training.observations), 'integer');
}

/** Each metric, its baseline on the same split, how far apart and which is better. */
function metricFacts(
  facts: FactBuilder,
  detail: OutputDetail,
  rules: Record<string, MetricRule>,
  result: JobResult | null,
) {
  const names: string[] = [];
  for (const [name, value] of Object.entries(detail.metrics)) {
    const rule = rules[name];
    if (!rule) continue;
    names.push(name);
    const key = `metric.${name}`;
    facts.number(`${key}.value`, value, rule.format);
    const base = detail.baseline?.metrics[name];
    if (typeof base !== 'number' || !Number.isFinite(base)) continue;
    facts.number(`${key}.baseline`, base, rule.format);
    // a difference of ratios is in percentage points: shown as the ratios are
    facts.number(`${key}.difference`, Math.abs(value - base), rule.format);
    if (base !== 0)
      facts.number(`${key}.relative`, (Math.abs(value - base) / Math.abs(base)) * 100, 'percent');
    if (rule.better) {
      const better = rule.better === 'lower' ? value < base : value > base;
      facts.flag(`${key}.better`, better);
      facts.flag(`${key}.tie`, value === base);
    }
  }
  facts.number('metrics.count', names.length, 'integer');
  repeatFacts(facts, result?.repeats ?? null, rules);
}

/**
 * A run repeated with consecutive seeds: how many, which, and each metric's and its baseline's spread
 * (the values above are then the means). data.repeated is always set, so a rule can say 'single run'.
 */
function repeatFacts(
  facts: FactBuilder,
  repeats: JobResult['repeats'] | null,
  rules: Record<string, MetricRule>,
) {
  facts.flag('data.repeated', Boolean(repeats));
  if (!repeats) return;
  facts.number('data.repeats', repeats.count, 'integer');
  facts.number('data.confidence', repeats.confidence, 'ratio');
  facts.number('data.first_seed', repeats.seeds[0], 'integer');
  facts.number('data.last_seed', repeats.seeds.at(-1), 'integer');
  for (const [name, stat] of Object.entries(repeats.metrics)) {
    const rule = rules[name];
    if (!rule) continue;
    const key = `metric.${name}`;
    facts.number(`${key}.sd`, stat.sd, rule.format);
    facts.number(`${key}.ci_low`, stat.ci_low, rule.format);
    facts.number(`${key}.ci_high`, stat.ci_high, rule.format);
    const base = repeats.baseline?.metrics[name];
    if (base) {
      facts.number(`${key}.baseline_sd`, base.sd, rule.format);
      facts.number(`${key}.baseline_ci_low`, base.ci_low, rule.format);
      facts.number(`${key}.baseline_ci_high`, base.ci_high, rule.format);
    }
  }
}

interface Series {
  train: number[];
  test: number[];
}

/** The history's train and test loss (test_loss, else brain tumor's val_loss). */
function lossSeries(detail: OutputDetail): Series | null {
  const history = detail.output_data.training_history;
  if (!history) return null;
  const train = history.train_loss ?? history.loss ?? [];
  const test = history.test_loss ?? history.val_loss ?? [];
  return train.length > 0 || test.length > 0 ? { train, test } : null;
}

/**
 * Convergence: the epoch of the best test loss, where it levelled off (the first epoch whose best-so-far
 * test loss is within `plateau_tolerance` of the total improvement from the final best), the final gap
 * between test and train loss, and whether the test loss rose again after its best.
 */
function convergenceFacts(facts: FactBuilder, detail: OutputDetail, limits: ConvergenceLimits) {
  const history = detail.output_data.training_history ?? {};
  facts.number('conv.final_train_accuracy', history.accuracy?.at(-1), 'ratio');
  facts.number('conv.final_val_accuracy', history.val_accuracy?.at(-1), 'ratio');
  const series = lossSeries(detail);
  if (!series) return;
  const watched = series.test.length > 0 ? series.test : series.train;
  const epochs = watched.length;
  facts.number('conv.epochs', epochs, 'integer');
  if (epochs === 0) return;
  let best = 0;
  watched.forEach((value, index) => {
    if (value < watched[best]!) best = index;
  });
  facts.number('conv.best_epoch', best + 1, 'integer');
  facts.number('conv.best_loss', watched[best], 'decimal');
  facts.number('conv.first_loss', watched[0], 'decimal');
  facts.number('conv.epochs_after_best', epochs - 1 - best, 'integer');
  facts.flag('conv.best_at_end', best === epochs - 1);
  const improvement = watched[0]! - watched[best]!;
  if (improvement > 0) {
    let runningBest = watched[0]!;
    let plateau = epochs;
    for (let i = 0; i < epochs; i++) {
      runningBest = Math.min(runningBest, watched[i]!);
      if (runningBest - watched[best]! <= limits.plateau_tolerance * improvement) {
        plateau = i + 1;
        break;
      }
    }
    facts.number('conv.plateau_epoch', plateau, 'integer');
    facts.flag('conv.plateaued_early', plateau < epochs * limits.early_plateau_share);
    facts.number('conv.improvement', (improvement / watched[0]!) * 100, 'percent');
  }
  const lastTest = series.test.at(-1);
  const lastTrain = series.train.at(-1);
  facts.number('conv.final_train_loss', lastTrain, 'decimal');
  facts.number('conv.final_test_loss', lastTest, 'decimal');
  if (lastTest === undefined || lastTrain === undefined) return;
  facts.number('conv.rise_after_best', lastTest - watched[best]!, 'decimal');
  const risen = lastTest > watched[best]! * (1 + limits.overfit_rise);
  facts.flag('conv.test_rose', risen);
  const gap = lastTest - lastTrain;
  facts.number('conv.gap', Math.abs(gap), 'decimal');
  if (lastTrain !== 0)
    facts.number('conv.gap_relative', (Math.abs(gap) / Math.abs(lastTrain)) * 100, 'percent');
  const wide = lastTrain !== 0 && Math.abs(gap) / Math.abs(lastTrain) > limits.gap_ratio;
  facts.flag('conv.test_above_train', gap > 0);
  // over-fitting: the test loss ends well above the training loss and rose after its best epoch;
  // under-fitting: still improving at the last epoch, so more epochs would likely help
  facts.flag('conv.overfitting', wide && gap > 0 && risen);
  facts.flag('conv.underfitting', best === epochs - 1 && !(risen && wide));
}

/** The confusion matrix: rows are the actual class, columns the predicted one; labels from its chart. */
function confusionMatrixOf(result: JobResult | null): { labels: string[]; rows: number[][] } | null {
  const chart = result?.charts?.find((c) => c.type === 'confusion_matrix');
  const labels = chart ? chart.categories.map(String) : null;
  const stored = result?.confusion_matrix;
  if (stored) return { labels: labels ?? stored.map((_, i) => String(i)), rows: stored };
  if (!chart || !labels) return null;
  return { labels, rows: chart.series.map((s) => s.data.map((v) => Number(v))) };
}

/**
 * Which class is most often taken for which, how often, and the errors overall. A run repeated over
 * seeds holds the matrix summed over them, each seed's test part counted: its counts are totals over
 * the seeds (conf.over says so in every sentence quoting them) and conf.rows is one test part's rows.
 */
function confusionFacts(facts: FactBuilder, result: JobResult | null) {
  const matrix = confusionMatrixOf(result);
  if (!matrix || matrix.rows.length < 2) return;
  const seeds = result?.repeats?.count ?? 1;
  facts.affix('conf.over', seeds > 1 ? ` (summed over ${seeds} seeds)` : '');
  let total = 0;
  let errors = 0;
  let top: { actual: number; predicted: number; count: number } | null = null;
  matrix.rows.forEach((row, actual) =>
    row.forEach((count, predicted) => {
      total += count;
      if (actual === predicted) return;
      errors += count;
      if (count > 0 && (!top || count > top.count)) top = { actual, predicted, count };
    }),
  );
  facts.number('conf.total', total, 'integer');
  if (Number.isInteger(total / seeds)) facts.number('conf.rows', total / seeds, 'integer');
  facts.number('conf.errors', errors, 'integer');
  if (total > 0) facts.number('conf.error_share', errors / total, 'ratio');
  facts.number('conf.class_count', matrix.rows.length, 'integer');
  facts.text('conf.classes', listed(matrix.labels));
  const worst = top as { actual: number; predicted: number; count: number } | null;
  if (worst) {
    const actualTotal = matrix.rows[worst.actual]!.reduce((a, b) => a + b, 0);
    facts.text('conf.top_actual', matrix.labels[worst.actual]);
    facts.text('conf.top_predicted', matrix.labels[worst.predicted]);
    facts.number('conf.top_count', worst.count, 'integer');
    facts.number('conf.top_actual_total', actualTotal, 'integer');
    if (actualTotal > 0) facts.number('conf.top_share', worst.count / actualTotal, 'ratio');
  }
  // two classes with a named positive one (fraud): caught, missed and false alarms
  const training = result?.training_data ?? {};
  const positive = matrix.labels.indexOf(String(training.positive_class));
  if (matrix.rows.length !== 2 || positive === -1) return;
  const negative = 1 - positive;
  facts.text('conf.positive_label', matrix.labels[positive]);
  const positives = matrix.rows[positive]!.reduce((a, b) => a + b, 0);
  facts.number('conf.positives', positives, 'integer');
  facts.number('conf.caught', matrix.rows[positive]![positive], 'integer');
  facts.number('conf.missed', matrix.rows[positive]![negative], 'integer');
  facts.number('conf.false_alarms', matrix.rows[negative]![positive], 'integer');
  facts.number(
    'conf.negatives',
    matrix.rows[negative]!.reduce((a, b) => a + b, 0),
    'integer',
  );
  facts.flag('conf.catches_none', matrix.rows[positive]![positive] === 0);
}

/** A quantum run: where it ran, its noise, shots and circuit (qubits, depth, two-qubit gates). */
function quantumFacts(facts: FactBuilder, { job, detail }: AnalysisSubject, result: JobResult | null) {
  if (result?.model_type !== 'Quantum') return;
  facts.text('quantum.backend', detail.quantum_backend);
  const run: Record<string, unknown> = result.quantum_run ?? {};
  const selection: Record<string, unknown> = result.selection ?? {};
  const solver = isPlainObject(selection.solver_details) ? selection.solver_details : {};
  const training = result.training_data ?? {};
  const config = isPlainObject(training.config) ? training.config : {};
  const circuit = [run.circuit, solver.circuit, selection.circuit, config.circuit].find(isPlainObject);
  facts.number('quantum.qubits', num(config.qubits) ?? num(selection.qubits), 'integer');
  if (circuit) {
    facts.number('quantum.qubits', num(circuit.qubits), 'integer');
    facts.number('quantum.depth', num(circuit.depth), 'integer');
    facts.number('quantum.two_qubit_gates', num(circuit.two_qubit_gates), 'integer');
    facts.number('quantum.parameters', num(circuit.parameters), 'integer');
  }
  const noise = [
    run.noise_model,
    solver.noise_model,
    selection.noise_model,
    config.noise_model,
    job.extension?.quantum_noise_model,
  ].find((v) => typeof v === 'string' && v !== '' && v.toLowerCase() !== 'none'); // the form's 'None' is no noise
  facts.flag('quantum.noisy', typeof noise === 'string');
  facts.text('quantum.noise_model', typeof noise === 'string' ? noise : null);
  const shots = num(job.params.quantum_shots);
  if (shots !== null && shots > 0) facts.number('quantum.shots', shots, 'integer');
  const optimizer = [solver.optimizer, selection.optimizer].find(isPlainObject);
  facts.number('quantum.evaluations', num(optimizer?.evaluations) ?? num(config.maxiter), 'integer');
  facts.text('quantum.optimizer', typeof optimizer?.method === 'string' ? optimizer.method : null);
}

/** An optimisation's chosen selection next to the exact optimum. */
function selectionFacts(facts: FactBuilder, result: JobResult | null) {
  const selection = result?.selection ?? null;
  if (!selection) return;
  const assets = Array.isArray(selection.assets) ? selection.assets.map(String) : [];
  if (assets.length > 0) facts.text('sel.assets', listed(assets));
  facts.number('sel.budget', num(selection.budget), 'integer');
  facts.number('sel.risk_factor', num(selection.risk_factor), 'decimal');
  facts.number('sel.feasible', num(selection.feasible_selections), 'integer');
  facts.number('sel.gap_km', num(selection.gap_km), 'decimal');
  const routes = Array.isArray(selection.routes) ? selection.routes.filter(isPlainObject) : [];
  if (routes.length > 0) {
    facts.number('sel.routes', routes.length, 'integer');
    const described = routes.map(
      (r) =>
        `vehicle ${String(r.vehicle)}: ${Array.isArray(r.stops) ? listed(r.stops.map(String)) : ''} (${formatNumber(Number(r.distance_km), 'decimal')} km, load ${String(r.load)})`,
    );
    facts.text('sel.route_list', described.join('; '));
  }
  const exact = Array.isArray(selection.exact_selection) ? selection.exact_selection.map(String) : null;
  if (exact) {
    facts.text('sel.exact_assets', listed(exact));
    facts.flag('sel.found_optimum', [...exact].sort().join('|') === [...assets].sort().join('|'));
  }
}

/** A brain tumor prediction: the class and its probability. */
function predictionFacts(facts: FactBuilder, detail: OutputDetail) {
  if (detail.output_data.result_type !== 'Prediction') return;
  const data = detail.output_data;
  const predicted = typeof data.prediction === 'string' ? data.prediction : null;
  facts.text('pred.class', predicted);
  if (predicted && isPlainObject(data.probabilities))
    facts.number('pred.probability', num(data.probabilities[predicted]), 'ratio');
}
