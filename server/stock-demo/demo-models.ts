// The landing demo's stock models: per symbol and model kind, the stock price prediction problem's
// own models (the classical recurrent network, the hybrid quantum forecaster) trained once through
// the normal job path (the problem's app_data mapped to its job body by the engine, queued, run by a
// worker) on the symbol's shipped history, with the fixed seed, then reused. A prediction never
// trains: a missing model is queued here and the caller is told it is being prepared.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  mapJobExtension,
  mapJobRequest,
  validateAppData,
  validateJobBody,
  type EngineContext,
  type Registry,
} from '../../src/engine';
import type { DemoModel } from '../../src/engine/stock-demo';
import type { UsersRepository } from '../auth/users-repository';
import type { Database } from '../db/database';
import { isFinal, JobStatus } from '../jobs/job-states';
import type { JobsRepository } from '../jobs/jobs-repository';
import type { JobsService } from '../jobs/jobs-service';
import type { ShippedMarketData } from '../market-data/market-data';

/** The account that owns the demo's training jobs (migration 0020: no password, disabled). */
export const DEMO_OWNER_EMAIL = 'landing-demo@qmlstudio.invalid';
const PROBLEM = 'stock-price-prediction';
const SEED = 42;
/** A failed training is tried again after this long, not on every request. */
const RETRY_AFTER_MS = 10 * 60 * 1000;

/** How a model kind is trained: the problem form's values (the rows are the history's last `rows`). */
export interface TrainingSettings {
  rows: number;
  classical: { method: 'LSTM' | 'GRU' | 'RNN'; epochs: number; learningRate: number; hiddenLayers: number };
  quantum: { epochs: number; learningRate: number; hiddenLayers: number; qubits: number };
}

export const DEFAULT_TRAINING: TrainingSettings = {
  rows: 500,
  classical: { method: 'LSTM', epochs: 40, learningRate: 0.01, hiddenLayers: 16 },
  quantum: { epochs: 10, learningRate: 0.01, hiddenLayers: 16, qubits: 4 },
};

export type ModelState =
  | { state: 'ready'; jobId: number; modelDir: string }
  | { state: 'preparing'; jobId: number | null }
  | { state: 'failed'; reason: string };

interface ModelRow {
  job_id: string | number | null;
  data_sha256: string;
  requested_at: string | Date;
  status: string | null;
  error: string | null;
}

export class DemoModels {
  /** Submissions under way in this process, by symbol and kind (two requests queue one job). */
  private readonly submitting = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      db: Database;
      registry: Registry;
      jobs: JobsService;
      jobsRepository: JobsRepository;
      users: UsersRepository;
      market: ShippedMarketData;
      outputsDir: string;
    },
    private readonly settings: TrainingSettings = DEFAULT_TRAINING,
  ) {}

  /** The model's state; a missing, outdated or (after a while) failed model is queued for training. */
  async ensure(symbol: string, kind: DemoModel): Promise<ModelState> {
    const file = this.deps.market.pathOf(symbol);
    if (!file) return { state: 'failed', reason: `No history for ${symbol}` };
    const sha256 = this.digest(file);
    const row = await this.row(symbol, kind);
    const jobId = row?.job_id === null || row?.job_id === undefined ? null : Number(row.job_id);
    if (row && row.data_sha256 === sha256 && jobId !== null) {
      if (row.status === JobStatus.completed) {
        return { state: 'ready', jobId, modelDir: path.join(this.deps.outputsDir, String(jobId)) };
      }
      if (row.status !== null && !isFinal(row.status)) return { state: 'preparing', jobId };
      const age = Date.now() - new Date(row.requested_at).getTime();
      if (age < RETRY_AFTER_MS)
        return { state: 'failed', reason: row.error ?? `the training ended ${row.status}` };
    }
    await this.submitOnce(symbol, kind, file, sha256);
    return { state: 'preparing', jobId: null };
  }

  private submitOnce(symbol: string, kind: DemoModel, file: string, sha256: string): Promise<void> {
    const key = `${symbol}:${kind}`;
    let pending = this.submitting.get(key);
    if (!pending) {
      pending = this.submit(symbol, kind, file, sha256).finally(() => this.submitting.delete(key));
      this.submitting.set(key, pending);
    }
    return pending;
  }

  private async submit(symbol: string, kind: DemoModel, file: string, sha256: string): Promise<void> {
    const owner = await this.deps.users.findByEmail(DEMO_OWNER_EMAIL);
    if (!owner) throw new Error(`the demo models' owner ${DEMO_OWNER_EMAIL} is missing (migration 0020)`);
    const { body, extension } = this.jobFor(symbol, kind, file, sha256);
    const job = await this.deps.jobs.submit(owner, PROBLEM, body, {
      extension,
      name: `Landing demo: ${symbol} ${kind} #{id}`,
    });
    await this.deps.db.query(
      `insert into stock_demo_models (symbol, model_kind, job_id, data_sha256, requested_at)
       values ($1, $2, $3, $4, now())
       on conflict (symbol, model_kind)
       do update set job_id = excluded.job_id, data_sha256 = excluded.data_sha256, requested_at = now()`,
      [symbol, kind, job.id, sha256],
    );
  }

  /** The problem's job body and envelope extension for this symbol and kind, as a run of the form gives them. */
  jobFor(symbol: string, kind: DemoModel, file: string, sha256: string) {
    const problem = this.deps.registry.getProblem(PROBLEM);
    const facts = this.deps.market.find(symbol)!;
    const columns = ['Date', 'Open', 'High', 'Low', 'Close', 'Volume'];
    const rows = Math.min(this.settings.rows, facts.rows);
    const url = `samples/market/${symbol}.csv`;
    const model =
      kind === 'classical'
        ? {
            model_type: 'Classical',
            training_model_method: this.settings.classical.method,
            epochs: this.settings.classical.epochs,
            learning_rate: this.settings.classical.learningRate,
            hidden_layers: this.settings.classical.hiddenLayers,
          }
        : {
            model_type: 'Quantum',
            training_model_method: 'Quantum',
            epochs: this.settings.quantum.epochs,
            learning_rate: this.settings.quantum.learningRate,
            hidden_layers: this.settings.quantum.hiddenLayers,
            qubits: this.settings.quantum.qubits,
            quantum_device: {
              use_quantum_sim: true,
              sim_quantum_device: 'aer_simulator_statevector',
              quantum_noise_model: 'None',
              check_custom_ibm_token: false,
            },
          };
    const appData = {
      dataset: { kind: 'csv', name: `${symbol} daily prices`, url },
      preprocess: {
        training_features: ['Close'],
        prediction_features: ['Close'],
        splitter: { from_index: facts.rows - rows + 1, to_index: facts.rows },
        train_test_split: 0.8,
        normalization: '[0,1]',
        missing_values: 'impute_average',
      },
      model_configurations: model,
    };
    const context: EngineContext = { rowCount: facts.rows, columns, applicationId: 0, userId: 0 };
    const validation = validateAppData(problem, appData, context);
    if (!validation.valid) {
      const first = validation.errors[0]!;
      throw new Error(`the demo's ${kind} model settings break ${first.path}: ${first.message}`);
    }
    const body = mapJobRequest(problem, appData, context).body;
    const check = validateJobBody(problem, body);
    if (!check.valid) throw new Error(`the demo's ${kind} job body breaks ${check.errors[0]!.path}`);
    const extension = {
      dataset: {
        path: file,
        sha256,
        row_count: facts.rows,
        columns,
        label: `${symbol} daily prices (${facts.source})`,
        synthetic: facts.synthetic,
      },
      ...mapJobExtension(problem, appData, context),
      seed: SEED,
    };
    return { body, extension };
  }

  private async row(symbol: string, kind: DemoModel): Promise<ModelRow | null> {
    const { rows } = await this.deps.db.query<ModelRow>(
      `select m.job_id, m.data_sha256, m.requested_at, j.status, j.error
       from stock_demo_models m left join jobs j on j.id = m.job_id
       where m.symbol = $1 and m.model_kind = $2`,
      [symbol, kind],
    );
    return rows[0] ?? null;
  }

  private readonly digests = new Map<string, string>();

  private digest(file: string): string {
    let digest = this.digests.get(file);
    if (!digest) {
      digest = createHash('sha256').update(readFileSync(file)).digest('hex');
      this.digests.set(file, digest);
    }
    return digest;
  }
}
