// Records the analysis engine's fixtures: real runs of every problem through execute-job and the real
// worker, small settings, stored as the jobs row (params, result, app_data, extension) the engine reads.
// Runs only with RECORD_ANALYSIS_FIXTURES=1 (minutes of training):
//   RECORD_ANALYSIS_FIXTURES=1 npx vitest run --project record-fixtures
//   npx prettier --write server/analysis/fixtures
// (ONLY=stock-lstm,fraud-vqc records some of them.) Record again when the result contract changes: a
// fixture that breaks it reads as an older worker's result, with fewer facts.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { executeApplication, MODES, startStack, type TestStack } from '../test-support/harness';

const FIXTURES = path.resolve('server/analysis/fixtures');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- app_data edited freely

/** Each run: a problem, a fixture name and how its example's settings are made small. */
const RUNS: { problemId: string; name: string; edit: (appData: Json) => void }[] = [
  {
    problemId: 'stock-price-prediction',
    name: 'stock-quantum',
    edit: (a) => (a.model_configurations.epochs = 6),
  },
  {
    problemId: 'stock-price-prediction',
    name: 'stock-lstm',
    edit: (a) => {
      Object.assign(a.model_configurations, {
        model_type: 'Classical',
        training_model_method: 'LSTM',
        epochs: 20,
      });
      delete a.model_configurations.qubits;
      delete a.model_configurations.quantum_device;
    },
  },
  { problemId: 'demand-forecasting', name: 'demand-lstm', edit: (a) => (a.model_configurations.epochs = 15) },
  {
    problemId: 'fraud-detection',
    name: 'fraud-vqc',
    edit: (a) => (a.model_configurations.optimizer_step = 20),
  },
  {
    problemId: 'fraud-detection',
    name: 'fraud-random-forest',
    edit: (a) => {
      Object.assign(a.model_configurations, { model_type: 'Classical', method: 'Random Forest' });
    },
  },
  {
    problemId: 'portfolio-optimization',
    name: 'portfolio-vqe',
    edit: (a) => (a.model_configurations.optimizer_step = 30),
  },
  {
    problemId: 'portfolio-optimization',
    name: 'portfolio-classical',
    edit: (a) => {
      Object.assign(a.model_configurations, { model_type: 'Classical', optimizer_type: 'Classical' });
    },
  },
  {
    problemId: 'vehicle-routing',
    name: 'routing-qaoa',
    edit: (a) => (a.model_configurations.optimizer_step = 10),
  },
  {
    problemId: 'brain-tumor',
    name: 'brain-fcn',
    edit: (a) => {
      a.dataset.training_range = { from_index: 1, to_index: 60 };
      Object.assign(a.model_configurations, { model: 'FCN', learningRate: 0.01, epochs: 20 });
    },
  },
];

describe.runIf(process.env.RECORD_ANALYSIS_FIXTURES === '1')('record analysis fixtures', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(MODES[0]!, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '900' });
    const token = await stack.userToken('fixtures@example.com');
    const { rows } = await stack.services.db.query<{ id: number }>('select id from users where email = $1', [
      'fixtures@example.com',
    ]);
    owner = { id: Number(rows[0]!.id), token };
  });
  afterAll(() => stack?.close());

  for (const run of RUNS.filter((r) => !process.env.ONLY || process.env.ONLY.split(',').includes(r.name))) {
    it(`${run.name}`, async () => {
      const problem = stack.services.registry.getProblem(run.problemId);
      const { appName, appData } = createExampleAppData(problem);
      const edited = structuredClone(appData) as Json;
      run.edit(edited);
      const { outputId, final } = await executeApplication(
        stack,
        owner,
        { problemId: run.problemId, appName, appData: edited as AppData },
        900_000,
      );
      expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
      const job = await stack.services.repositories.jobs.find(outputId);
      const { owner_id: _owner, ...stored } = job as Json;
      writeFileSync(path.join(FIXTURES, `${run.name}.json`), `${JSON.stringify(stored, null, 1)}\n`);
    }, 900_000);
  }
});
