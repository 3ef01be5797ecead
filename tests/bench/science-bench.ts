/**
 * Benchmark, `npm run bench:science [-- --seeds N] [--only problem[,problem]] [--models label[,label]]
 * [--brain-range from-to] [--json file]`: prints a table; not a timed test.
 *
 * For each listed problem's example application and each model its form offers (the example's own
 * configuration with only the model changed, every other field the form's default), the job runs through
 * the worker as a run of the application does: the engine maps the app_data to the job body and the
 * extension (`mapJobRequest`, `mapJobExtension`), the dataset is the shipped sample as the server resolves
 * it, and the envelope goes to a warm worker (`WarmWorkerPool`, the server's launcher). Each runs with
 * `--seeds` consecutive seeds from the server's default seed (5 by default); the table gives each model's
 * test metric as mean and 95% confidence interval (Student's t) beside each baseline on the same split
 * (the baselines do not depend on the seed), and whether the goals hold:
 * - demand forecasting: every model's mean RMSE below seasonal naive's;
 * - stock price prediction: every model's mean RMSE at most 1.02 times persistence's;
 * - brain tumor: the QCNN at the form's defaults (its range too: a new application's), with the patient
 *   split, above the majority class's accuracy.
 * The exit code is 1 when a goal fails or a run does not complete.
 *
 * SCHEMAS_DIR is read as the server reads it (server/config's rule): the problems and their examples come
 * from that directory, the samples from samples/ beside it, and the worker is given the same directory,
 * so a copy of schemas/ with another example range is benched without touching the repository's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  createDefaultAppData,
  fillDefaults,
  mapJobExtension,
  mapJobRequest,
  validateAppData,
  type AppData,
  type EngineContext,
  type Problem,
} from '../../src/engine';
import { loadRegistry } from '../../src/engine/node/load-schemas';
import { readConfigVariable, samplesDirBeside } from '../../server/config';
import { WarmWorkerPool } from '../../server/jobs/warm-worker-pool';
import { buildJobEnvelope } from '../../server/jobs/worker-protocol';
import { workerSchemasEnvironment } from '../../server/jobs/worker-process';
import { DEFAULT_SEED } from '../../server/outputs/outputs-service';
import { SampleCatalog } from '../../server/samples/sample-catalog';
import { datasetForWorker, datasetReferenceOf } from '../../server/datasets/dataset-resolver';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const SEEDS = Number(option('seeds') ?? 5);
const ONLY = option('only')?.split(',');
const JSON_OUT = option('json');
/** The brain tumor example's training range instead of its own (e.g. 1-600). */
const BRAIN_RANGE = option('brain-range')?.split('-').map(Number);
/** Only the models whose label starts with one of these (e.g. QCNN). */
const MODELS = option('models')?.split(',');
const PYTHON =
  process.env.WORKER_PYTHON ?? path.resolve(import.meta.dirname, '../../worker/.venv/bin/python');

type Result = Record<string, unknown> & {
  metrics?: Record<string, number | null>;
  baseline?: { name: string; metrics: Record<string, number | null> } | null;
  baselines?: Record<string, Record<string, number | null>>;
};

/** A model of a problem: the form values that choose it (merged over the example's configuration). */
interface Variant {
  label: string;
  modelConfigurations: Record<string, unknown>;
  dataset?: Record<string, unknown>;
  /** Train on the form's default range (a new application's) instead of the example's. */
  formRange?: boolean;
}

/** What the table shows for a problem: its metrics (name, lower is better?) and its baselines. */
interface Scoring {
  metrics: { name: string; lowerIsBetter: boolean }[];
  baselines: (result: Result) => Record<string, Record<string, number | null>>;
  goal?: (
    variant: Variant,
    model: Stats,
    baselines: Record<string, Stats>,
  ) => { text: string; ok: boolean } | null;
}

interface Stats {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/**
 * The model's mean against its best baseline's (lowest or highest by the metric), as the output's plain
 * sentence judges it: 'beats', 'ties' (equal to 6 significant digits) or 'loses', with that baseline's name.
 * A goal may name a weaker baseline; this column keeps the strongest in view.
 */
function versusBest(model: Stats, baselines: Record<string, Stats>, lowerIsBetter: boolean): string {
  const entries = Object.entries(baselines).filter(([, s]) => Number.isFinite(s.mean));
  if (entries.length === 0 || !Number.isFinite(model.mean)) return '-';
  const [name, best] = entries.reduce((a, b) =>
    (lowerIsBetter ? b[1].mean < a[1].mean : b[1].mean > a[1].mean) ? b : a,
  );
  const label = name.replace(/_/g, ' ');
  if (Math.abs(model.mean - best.mean) <= 1e-6 * Math.abs(best.mean)) return `ties ${label}`;
  const better = lowerIsBetter ? model.mean < best.mean : model.mean > best.mean;
  return `${better ? 'beats' : 'loses to'} ${label}`;
}

const forecastBaselines = (result: Result) => result.baselines ?? {};
const singleBaseline = (result: Result) =>
  result.baseline ? { [result.baseline.name]: result.baseline.metrics } : {};

const PLAN: Record<string, { variants: Variant[]; scoring: Scoring }> = {
  'stock-price-prediction': {
    variants: [
      { label: 'Quantum (example)', modelConfigurations: {} },
      ...['LSTM', 'GRU', 'RNN'].map((m) => ({
        label: m,
        modelConfigurations: { model_type: 'Classical', training_model_method: m },
      })),
    ],
    scoring: {
      metrics: [{ name: 'rmse', lowerIsBetter: true }],
      baselines: forecastBaselines,
      goal: (_v, model, baselines) => {
        const persistence = baselines.persistence;
        if (!persistence) return null;
        const limit = persistence.mean * 1.02;
        return { text: `RMSE <= 1.02 x persistence (${fmt(limit)})`, ok: model.mean <= limit };
      },
    },
  },
  'demand-forecasting': {
    variants: [
      { label: 'Classical (example)', modelConfigurations: {} },
      { label: 'Quantum', modelConfigurations: { model_type: 'Quantum' } },
    ],
    scoring: {
      metrics: [{ name: 'rmse', lowerIsBetter: true }],
      baselines: forecastBaselines,
      goal: (_v, model, baselines) => {
        const seasonal = baselines.seasonal_naive;
        if (!seasonal) return { text: 'RMSE < seasonal naive (not scored)', ok: false };
        // A model that equals seasonal naive (to rounding) has not beaten it.
        const ok = model.mean < seasonal.mean * (1 - 1e-6);
        return { text: `RMSE < seasonal naive (${fmt(seasonal.mean)})`, ok };
      },
    },
  },
  'fraud-detection': {
    variants: [
      { label: 'VQC (example)', modelConfigurations: {} },
      {
        label: 'QSVC',
        modelConfigurations: { method: 'Quantum Support Vector Classifier' },
      },
      ...['SVM', 'Random Forest', 'Logistic Regression', 'Gradient Boosting', 'Neural Network'].map((m) => ({
        label: m,
        modelConfigurations: { model_type: 'Classical', method: m },
      })),
    ],
    scoring: {
      metrics: [
        { name: 'f1', lowerIsBetter: false },
        { name: 'pr_auc', lowerIsBetter: false },
        { name: 'precision', lowerIsBetter: false },
        { name: 'recall', lowerIsBetter: false },
      ],
      baselines: singleBaseline,
    },
  },
  'portfolio-optimization': {
    variants: [
      { label: 'VQE (example)', modelConfigurations: {} },
      { label: 'QAOA', modelConfigurations: { optimizer_type: 'QAOA' } },
      { label: 'Classical', modelConfigurations: { model_type: 'Classical', optimizer_type: 'Classical' } },
    ],
    scoring: { metrics: [{ name: 'objective', lowerIsBetter: true }], baselines: singleBaseline },
  },
  'brain-tumor': {
    variants: [
      { label: 'densenet121 (example)', modelConfigurations: {} },
      {
        label: 'QCNN (patient split, form range)',
        modelConfigurations: { modelType: 'quantum', model: 'QCNN' },
        dataset: { split: 'patient' },
        formRange: true,
      },
    ],
    scoring: {
      metrics: [{ name: 'accuracy', lowerIsBetter: false }],
      baselines: singleBaseline,
      goal: (variant, model, baselines) => {
        if (!variant.label.startsWith('QCNN')) return null;
        const majority = Object.values(baselines)[0];
        if (!majority) return null;
        return { text: `accuracy > majority (${fmt(majority.mean)})`, ok: model.mean > majority.mean };
      },
    },
  },
};

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom (then the normal's). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

function stats(values: number[]): Stats {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, low: mean, high: mean, n };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (T975[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { mean, low: mean - half, high: mean + half, n };
}

function fmt(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1000) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(2);
  return value.toFixed(4);
}
const interval = (s: Stats) => (s.n > 1 ? `${fmt(s.mean)} [${fmt(s.low)}, ${fmt(s.high)}]` : fmt(s.mean));

function printTable(header: string[], rows: string[][]) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

/** The example's app_data with the variant's model: its values over the example's, the form's defaults for the rest. */
function variantAppData(problem: Problem, variant: Variant, context: EngineContext): AppData {
  const appData = structuredClone(problem.example.appData) as AppData;
  const models = (appData.model_configurations ?? {}) as Record<string, unknown>;
  appData.model_configurations = fillDefaults(
    problem.forms.model_configurations!.schema,
    { ...models, ...variant.modelConfigurations },
    context,
  );
  if (variant.dataset) appData.dataset = { ...(appData.dataset as object), ...variant.dataset };
  if (variant.formRange) {
    const range = (createDefaultAppData(problem, context).dataset as { training_range?: unknown })
      .training_range;
    appData.dataset = { ...(appData.dataset as object), training_range: range };
  }
  if (BRAIN_RANGE && problem.id === 'brain-tumor') {
    const [from, to] = BRAIN_RANGE;
    appData.dataset = { ...(appData.dataset as object), training_range: { from_index: from, to_index: to } };
  }
  const check = validateAppData(problem, appData, context);
  if (!check.valid) {
    const first = check.errors[0]!;
    throw new Error(`${problem.id} ${variant.label}: ${first.path} ${first.message}`);
  }
  return appData;
}

/** Runs one envelope on the warm worker; the result line's data, or the error line's message. */
async function runJob(pool: WarmWorkerPool, envelope: unknown): Promise<Result> {
  let result: Result | null = null;
  let error = 'the worker ended without a result';
  const handle = pool.launch({
    command: 'run',
    input: envelope,
    onLine: (line) => {
      if (!line.trim()) return;
      const message = JSON.parse(line) as { type?: string; data?: Result; message?: string };
      if (message.type === 'result') result = message.data ?? {};
      if (message.type === 'error') error = message.message ?? error;
    },
  });
  await handle.done;
  if (!result) throw new Error(error);
  return result;
}

// ---------------------------------------------------------------------------------------------------
// SCHEMAS_DIR as the server reads it: its problems (examples, forms), the samples beside it, and the
// workers told the same directory, so a schema copy can try another example range.
const schemasDir = readConfigVariable('schemasDir');
const registry = loadRegistry(schemasDir);
const samples = await SampleCatalog.load(samplesDirBeside(schemasDir));
const pool = new WarmWorkerPool({
  python: PYTHON,
  env: workerSchemasEnvironment(schemasDir),
  startNow: true,
  log: { info: () => {}, warn: (o, m) => console.error(m, o), error: (o, m) => console.error(m, o) },
});
const outputs = mkdtempSync(path.join(os.tmpdir(), 'qml-bench-science-'));
const seeds = Array.from({ length: SEEDS }, (_, i) => DEFAULT_SEED + i);
const rows: string[][] = [];
const records: unknown[] = [];
let failures = 0;
let jobId = 0;

for (const [problemId, plan] of Object.entries(PLAN)) {
  if (ONLY && !ONLY.includes(problemId)) continue;
  const problem = registry.getProblem(problemId);
  const reference = datasetReferenceOf(problem.example.appData);
  const file = reference!.value.replace(/^samples\//, '');
  const sample = samples.find(file);
  if (!sample) {
    rows.push([
      problem.name,
      '-',
      '-',
      '-',
      '-',
      '-',
      `sample ${file} is missing (make install writes it)`,
      'FAIL',
    ]);
    failures++;
    continue;
  }
  const dataset = datasetForWorker({
    path: samples.pathOf(file),
    key: null,
    sha256: sample.sha256,
    rowCount: sample.rows,
    columns: [...sample.columns],
    label: sample.label,
    synthetic: sample.synthetic,
    source: 'sample',
  });
  const context: EngineContext = {
    rowCount: sample.rows,
    columns: [...sample.columns],
    applicationId: 1,
    userId: 1,
  };
  for (const variant of plan.variants) {
    if (MODELS && !MODELS.some((m) => variant.label.startsWith(m))) continue;
    let appData: AppData;
    try {
      appData = variantAppData(problem, variant, context);
    } catch (e) {
      rows.push([problem.name, variant.label, '-', '-', '-', '-', String(e).slice(0, 200), 'FAIL']);
      failures++;
      continue;
    }
    const body = mapJobRequest(problem, appData, context).body;
    const values = new Map<string, number[]>();
    const baselineValues = new Map<string, Map<string, number[]>>();
    let error: string | null = null;
    const started = Date.now();
    for (const seed of seeds) {
      const extension = { dataset, ...mapJobExtension(problem, appData, context), seed };
      const envelope = buildJobEnvelope({ id: ++jobId, kind: problem.id, params: body, extension }, outputs);
      let result: Result;
      try {
        result = await runJob(pool, envelope);
      } catch (e) {
        error = String(e instanceof Error ? e.message : e).slice(0, 200);
        break;
      }
      records.push({
        problem: problemId,
        model: variant.label,
        seed,
        metrics: result.metrics,
        baselines: plan.scoring.baselines(result),
      });
      for (const { name } of plan.scoring.metrics) {
        const value = result.metrics?.[name];
        if (typeof value === 'number') values.set(name, [...(values.get(name) ?? []), value]);
      }
      for (const [baseline, metrics] of Object.entries(plan.scoring.baselines(result))) {
        const byMetric = baselineValues.get(baseline) ?? new Map<string, number[]>();
        for (const { name } of plan.scoring.metrics) {
          const value = metrics[name];
          if (typeof value === 'number') byMetric.set(name, [...(byMetric.get(name) ?? []), value]);
        }
        baselineValues.set(baseline, byMetric);
      }
    }
    const seconds = ((Date.now() - started) / 1000 / seeds.length).toFixed(1);
    console.error(`bench:science ${problem.name} ${variant.label}: ${error ?? 'done'} (${seconds} s a run)`);
    if (error) {
      rows.push([problem.name, variant.label, '-', '-', '-', '-', error, 'FAIL']);
      failures++;
      continue;
    }
    plan.scoring.metrics.forEach(({ name, lowerIsBetter }, index) => {
      const model = stats(values.get(name) ?? [NaN]);
      const baselineStats: Record<string, Stats> = {};
      for (const [baseline, byMetric] of baselineValues) {
        const series = byMetric.get(name);
        if (series?.length) baselineStats[baseline] = stats(series);
      }
      const goal = index === 0 ? (plan.scoring.goal?.(variant, model, baselineStats) ?? null) : null;
      if (goal && !goal.ok) failures++;
      rows.push([
        index === 0 ? problem.name : '',
        index === 0 ? `${variant.label}, ${seconds} s/run` : '',
        name,
        interval(model),
        Object.entries(baselineStats)
          .map(([baseline, s]) => `${baseline.replace(/_/g, ' ')} ${fmt(s.mean)}`)
          .join('; ') || '-',
        versusBest(model, baselineStats, lowerIsBetter),
        goal?.text ?? '',
        goal ? (goal.ok ? 'pass' : 'FAIL') : '',
      ]);
    });
  }
}
await pool.close();
rmSync(outputs, { recursive: true, force: true });
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(records, null, 1));

console.log(
  `\n## Science (example applications, each model over ${SEEDS} seeds ${seeds[0]}..${seeds.at(-1)}: mean [95% CI]; baselines on the same split)\n`,
);
printTable(
  [
    'application',
    'model',
    'metric',
    'model mean [95% CI]',
    'baselines (mean)',
    'vs best baseline',
    'goal',
    'result',
  ],
  rows,
);
console.log(`\n${failures === 0 ? 'all goals pass' : `${failures} goal(s) or run(s) failed`}`);
process.exitCode = failures === 0 ? 0 : 1;
