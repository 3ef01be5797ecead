import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppData } from '../../src/engine';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import type { WorkerLaunch, WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerExit, WorkerHandle } from '../jobs/worker-process';
import { startStack, type TestStack } from '../test-support/harness';
import { InferenceService, TOO_MANY_INFERENCES, type InferenceOptions } from './inference-service';

// How the inference service answers when its worker does not: a time limit, a crash, a runtime
// error line, a stream without a result, too many at once. The worker is a scripted stand-in (the
// real one is exercised in inference.test.ts); none of these may become a 500.

const STOCK = 'stock-price-prediction';
const SAMPLE_URL = 'samples/apple_google_stock.csv';
const FEATURES = ['Close', 'High', 'Low', 'Open'];

type Script = { lines?: object[]; exit?: Partial<WorkerExit> } | 'hang';

/** A launcher whose workers follow a script: write lines and exit, or hang until killed. */
class ScriptedLauncher implements WorkerLauncher {
  readonly kind = 'cold' as const;
  script: Script = 'hang';
  readonly launches: WorkerLaunch[] = [];
  readonly kills: NodeJS.Signals[] = [];

  launch(options: WorkerLaunch): WorkerHandle {
    this.launches.push(options);
    const script = this.script;
    let kill: (signal: NodeJS.Signals) => void = () => {};
    const done = new Promise<WorkerExit>((resolve) => {
      if (script === 'hang') {
        kill = (signal) => {
          this.kills.push(signal);
          resolve({ code: null, signal, stderrTail: '' });
        };
        return;
      }
      void (async () => {
        for (const line of script.lines ?? []) await options.onLine?.(JSON.stringify(line));
        resolve({ code: 0, signal: null, stderrTail: '', ...script.exit });
      })();
    });
    return { done, pid: 4242, kill: (signal) => kill(signal) };
  }

  async close(): Promise<void> {}
}

describe('inference when the worker fails', () => {
  let stack: TestStack;
  let owner: UserRecord;
  let appId: number;
  let outputId: number;
  const launcher = new ScriptedLauncher();

  const service = (options: Partial<InferenceOptions> = {}) =>
    new InferenceService(
      {
        db: stack.services.db,
        applications: new ApplicationsRepository(stack.services.db),
        registry: stack.services.registry,
        datasets: stack.services.datasets.resolver,
        launcher,
        log: pino({ level: 'silent' }),
      },
      { outputsDir: '/nonexistent/outputs', ...options },
    );

  const infer = (inference: InferenceService) =>
    inference.infer(owner, STOCK, owner.id, appId, { features: FEATURES, data_url: SAMPLE_URL });

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    await stack.userToken('owner@example.com');
    owner = (await stack.services.repositories.users.findByEmail('owner@example.com'))!;
    const appData = stack.services.registry.getProblem(STOCK).example.appData as AppData;
    const app = await new ApplicationsRepository(stack.services.db).create({
      userId: owner.id,
      appName: 'failures',
      appProblemId: STOCK,
      status: 'active',
      appData,
    });
    appId = app.id;
    // A Completed output whose result (within the result contract) names a model; the scripted worker
    // never reads it.
    const result = { problem: STOCK, model: 'LSTM', model_type: 'Classical', trained_model_path: 'model.pt' };
    const { rows } = await stack.services.db.query<{ id: number }>(
      `insert into jobs (kind, owner_id, status, params, result, application_id)
       values ($1, $2, 'Completed', '{}', $3, $4) returning id`,
      [STOCK, owner.id, JSON.stringify(result), appId],
    );
    outputId = Number(rows[0]!.id);
  });
  afterAll(async () => stack?.close());

  it('hands the worker the request: problem, the output directory, the resolved CSV path, the features', async () => {
    launcher.script = {
      lines: [{ type: 'result', data: { actual: [1, null], predicted: [1.5, 2], rows: 12 } }],
    };
    const outcome = await infer(service());
    expect(outcome).toEqual({
      ok: true,
      data: { actual: [1, null], predicted: [1.5, 2], output_id: outputId, rows: 12 },
    });
    const launch = launcher.launches.at(-1)!;
    expect(launch.command).toBe('infer');
    expect(launch.input).toEqual({
      problem: STOCK,
      model_dir: `/nonexistent/outputs/${outputId}`,
      dataset: {
        path: stack.services.samples.pathOf('apple_google_stock.csv'),
        sha256: stack.services.samples.find('apple_google_stock.csv')!.sha256,
      },
      features: FEATURES,
    });
  });

  it('kills a worker that runs past the time limit and says so (502)', async () => {
    launcher.script = 'hang';
    const outcome = await infer(service({ timeoutSeconds: 0.2 }));
    expect(outcome).toMatchObject({
      ok: false,
      status: 502,
      detail: 'The inference took longer than 0.2 s and was stopped',
    });
    expect(launcher.kills).toContain('SIGKILL');
  });

  it('reports a crash, a runtime error and a missing result as 502 in plain words', async () => {
    launcher.script = { exit: { code: null, signal: 'SIGKILL' } };
    expect(await infer(service())).toMatchObject({
      status: 502,
      detail: 'The inference failed: the worker was ended by SIGKILL',
    });
    launcher.script = {
      lines: [{ type: 'error', kind: 'runtime', message: 'RuntimeError: weights do not fit' }],
      exit: { code: 1 },
    };
    expect(await infer(service())).toMatchObject({
      status: 502,
      detail: 'The inference failed: RuntimeError: weights do not fit',
    });
    launcher.script = { lines: [{ type: 'log', level: 'info', message: 'hello' }], exit: { code: 0 } };
    expect(await infer(service())).toMatchObject({
      status: 502,
      detail: 'The inference failed: the worker ended with exit code 0',
    });
  });

  it("turns the worker's validation error into a 400 on the body's field", async () => {
    launcher.script = {
      lines: [
        { type: 'error', kind: 'validation', message: 'The dataset is too short', field: '/dataset/path' },
      ],
      exit: { code: 2 },
    };
    expect(await infer(service())).toEqual({
      ok: false,
      status: 400,
      detail: 'The dataset is too short',
      errors: [{ field: '/data_url', message: 'The dataset is too short' }],
    });
  });

  it('refuses more inferences at once than allowed (429 with a wait), and all after close', async () => {
    launcher.script = 'hang';
    const inference = service({ maxConcurrent: 1, timeoutSeconds: 30 });
    const first = infer(inference);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the first one is running
    expect(await infer(inference)).toMatchObject({ status: 429, detail: TOO_MANY_INFERENCES, retryAfter: 5 });
    await inference.close(); // kills the running one
    expect(await first).toMatchObject({ ok: false, status: 502 });
    expect(await infer(inference)).toMatchObject({ status: 429 });
  });
});
