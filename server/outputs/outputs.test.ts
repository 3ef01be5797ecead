import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, mapJobRequest, type AppData } from '../../src/engine';
import {
  bearer,
  itIn,
  MODES,
  ONE_MODE,
  readEventStream,
  startStack,
  waitForFinal,
  waitForRunning,
  type TestStack,
} from '../test-support/harness';
import { APPLICATION_RUNNING, EXECUTE_FAILED, OUTPUT_DELETED } from './outputs-service';
import { KILLED_FROM_OUTSIDE } from '../jobs/job-runner';
import { WarmWorkerPool } from '../jobs/warm-worker-pool';
import { writeFakePython } from '../test-support/fake-python';

// Outputs end to end with the REAL Python worker on small data: execute-job (the body must equal the
// engine's from the stored app_data, checked against the resolved dataset's rows), the lifecycle
// (progress, Completed with metrics and charts, stop, crash, time limit, restart), the output routes
// (detail, record, timeline, count, stream, delete with files) and ownership, in both queue modes.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const DEMAND = 'demand-forecasting';

interface User {
  id: number;
  token: string;
}

async function signedIn(stack: TestStack, email: string): Promise<User> {
  const token = await stack.userToken(email);
  const { rows } = await stack.services.db.query<{ id: number }>('select id from users where email = $1', [
    email,
  ]);
  return { id: Number(rows[0]!.id), token };
}

const call = (
  stack: TestStack,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  token: string | null,
  payload?: object,
) =>
  stack.app.inject({
    method,
    url: `/api${url}`,
    headers: token ? bearer(token) : {},
    ...(payload && { payload }),
  });

/** The demand example, small: rows 1..60, 5 epochs (seconds on a shared machine). */
function smallDemand(stack: TestStack, edit: (data: Json) => void = () => {}): AppData {
  const problem = stack.services.registry.getProblem(DEMAND);
  const data = structuredClone(createExampleAppData(problem).appData) as Json;
  data.preprocess.splitter = { from_index: 1, to_index: 60 };
  data.model_configurations.epochs = 5;
  edit(data);
  return data as AppData;
}

/** An application of the user's holding `appData` (stored as is: the route under test judges it). */
async function newApplication(stack: TestStack, owner: User, appData: AppData): Promise<number> {
  const { rows } = await stack.services.db.query<{ id: number }>(
    `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, 'Demand', $2, $3)
     returning id`,
    [owner.id, DEMAND, JSON.stringify(appData)],
  );
  return Number(rows[0]!.id);
}

/** The body the browser sends: the engine's, from the same app_data and the sample's rows. */
function bodyFor(stack: TestStack, owner: User, appId: number, appData: AppData) {
  const problem = stack.services.registry.getProblem(DEMAND);
  const sample = stack.services.samples.find('product_demand.csv')!;
  return mapJobRequest(problem, appData, {
    rowCount: sample.rows,
    columns: [...sample.columns],
    applicationId: appId,
    userId: owner.id,
  }).body;
}

/**
 * An output of a new demand application left 'running' with no worker behind it, as a server that
 * went down mid-run leaves it (created straight in the repository, not through execute-job).
 */
async function outputLeftRunning(stack: TestStack, owner: User) {
  const appData = smallDemand(stack);
  const appId = await newApplication(stack, owner, appData);
  const user = (await stack.services.auth.authenticate(owner.token))!.user;
  const job = await stack.services.db.transaction((tx) =>
    stack.services.repositories.jobs.create(tx, {
      kind: DEMAND,
      ownerId: user.id,
      params: bodyFor(stack, owner, appId, appData),
      applicationId: appId,
      appData,
      name: 'Demand #{id}',
    }),
  );
  await stack.services.db.query(`update jobs set status = 'running' where id = $1`, [job.id]);
  return { appId, job };
}

async function execute(stack: TestStack, owner: User, appData: AppData) {
  const appId = await newApplication(stack, owner, appData);
  const reply = await call(
    stack,
    'POST',
    `/${DEMAND}/execute-job/${owner.id}`,
    owner.token,
    bodyFor(stack, owner, appId, appData),
  );
  expect(reply.statusCode, reply.body).toBe(201);
  const json = reply.json() as Json;
  expect(json.message).toBe(APPLICATION_RUNNING);
  return { appId, outputId: Number(json.data.output_id) };
}

const detailOf = async (stack: TestStack, user: User, outputId: number) =>
  (await call(stack, 'GET', `/application-outputs/${outputId}/detail`, user.token)).json().data as Json;

describe.each(MODES)('outputs on $database with the $queue queue', (mode) => {
  // The lifecycle runs in every mode; refusals that create no job in one (harness MODES).
  const itOnce = itIn(mode, [ONE_MODE]);
  let stack: TestStack;
  let alice: User;
  let bob: User;
  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode, { WORKER_CONCURRENCY: '2', WORKER_TIMEOUT_SECONDS: '300' });
    alice = await signedIn(stack, 'alice@example.com');
    bob = await signedIn(stack, 'bob@example.com');
  });
  afterAll(async () => stack?.close());

  it.skipIf(!mode.available)(
    'runs demand forecasting to Completed with metrics, baseline, charts and its model; then deletes it with its files',
    async () => {
      const appData = smallDemand(stack);
      const { appId, outputId } = await execute(stack, alice, appData);

      const { job, events } = (await waitForFinal(stack, outputId, 240_000)) as Json;
      expect(job.status, JSON.stringify(events.slice(-3))).toBe('Completed');
      const progress = events.filter((e: Json) => e.type === 'progress');
      expect(progress.some((e: Json) => String(e.payload.stage).startsWith('Epoch'))).toBe(true);

      // The worker got the dataset and the preprocessing beside the body.
      const stored = await stack.services.repositories.jobs.find(outputId);
      expect(stored!.extension).toMatchObject({
        dataset: { row_count: 1001, synthetic: expect.any(Boolean) },
        normalization: '[0,1]',
        missing_values: 'impute_average',
        target_column: null,
        seed: 42,
      });
      expect(stored!.app_data).toEqual(appData);

      const detail = await detailOf(stack, alice, outputId);
      expect(detail).toMatchObject({
        id: outputId,
        name: `Demand #${outputId}`,
        status: 'Completed',
        application_id: appId,
        problem_id: DEMAND,
        progress: { percent: 100 },
        error: null,
        output_data: { result_type: 'Training' },
      });
      expect(detail.execution_time).toBeGreaterThan(0);
      expect(detail.trained_model_type).toBe('LSTM');
      for (const name of ['mse', 'rmse', 'mae', 'r2']) expect(typeof detail.metrics[name]).toBe('number');
      expect(detail.baseline.name).toBeTruthy();
      expect(typeof detail.baseline.metrics.rmse).toBe('number');
      expect(detail.charts.length).toBeGreaterThan(0);
      expect(
        detail.charts.every((c: Json) => ['line', 'bar', 'heatmap', 'confusion_matrix'].includes(c.type)),
      ).toBe(true);
      expect(detail.output_data.training_history.train_loss).toHaveLength(5);
      expect(detail.dataset).toMatchObject({ sha256: (stored!.extension as Json).dataset.sha256 });
      expect(detail.simplified_app_data).toEqual({
        output_layer_name: null,
        'Model Configurations': appData.model_configurations,
      });
      expect(detail.trained_model_path).toMatch(new RegExp(`^outputs/${outputId}/`));
      const modelFile = path.join(stack.config.dataDir, detail.trained_model_path);
      expect(existsSync(modelFile)).toBe(true);

      const record = (
        await call(stack, 'GET', `/application-outputs/${outputId}/record`, alice.token)
      ).json();
      expect(record).toMatchObject({
        success: true,
        data: {
          trained_model_path: detail.trained_model_path,
          application_id: appId,
          app_data: appData,
          simplified_app_data: detail.simplified_app_data,
        },
      });
      expect(record.data.output_logs.length).toBeGreaterThan(0);

      const timeline = (
        await call(stack, 'GET', `/application-outputs/${outputId}/status-timeline`, alice.token)
      ).json().data as Json[];
      expect(timeline.map((t) => t.status)).toEqual(['queued', 'running', 'Completed']);

      const count = (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json();
      expect(count.data).toEqual({ total: 1, ongoing: 0 });

      const all = (await call(stack, 'GET', `/application-outputs/${appId}/all`, alice.token)).json()
        .data as Json[];
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ id: outputId, name: `Demand #${outputId}`, status: 'Completed' });

      // The stream of a finished output replays its events and closes.
      const text = await readStream(stack, alice, outputId);
      expect(text).toContain('event: progress');
      expect(text).toContain('"status":"Completed"');

      // Bob sees none of it; the admin may read but not delete.
      for (const url of ['detail', 'record', 'status-timeline', 'stream']) {
        expect(
          (await call(stack, 'GET', `/application-outputs/${outputId}/${url}`, bob.token)).statusCode,
        ).toBe(404);
      }
      expect((await call(stack, 'GET', `/application-outputs/${appId}/count`, bob.token)).statusCode).toBe(
        404,
      );
      expect(
        (await call(stack, 'DELETE', `/application-outputs/${outputId}/delete`, bob.token)).statusCode,
      ).toBe(404);
      expect((await call(stack, 'POST', `/${DEMAND}/stop-job/${outputId}`, bob.token)).statusCode).toBe(404);
      const admin = await stack.app.inject({
        url: `/api/application-outputs/${outputId}/detail`,
        headers: bearer(stack.adminToken),
      });
      expect(admin.statusCode).toBe(200);

      const deleted = await call(stack, 'DELETE', `/application-outputs/${outputId}/delete`, alice.token);
      expect(deleted.json()).toEqual({ success: true, message: OUTPUT_DELETED });
      expect(existsSync(path.join(stack.config.dataDir, 'outputs', String(outputId)))).toBe(false);
      expect(
        (await call(stack, 'GET', `/application-outputs/${outputId}/detail`, alice.token)).statusCode,
      ).toBe(404);
      const { rows } = await stack.services.db.query('select 1 from job_events where job_id = $1', [
        outputId,
      ]);
      expect(rows).toHaveLength(0);
      expect(
        (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json().data,
      ).toEqual({
        total: 0,
        ongoing: 0,
      });
    },
    300_000,
  );

  it.skipIf(!mode.available)(
    'stops a running output (Manual Stop, said in its logs)',
    async () => {
      const appData = smallDemand(stack, (d) => {
        d.preprocess.splitter = { from_index: 1, to_index: 1001 };
        d.model_configurations.epochs = 100;
        d.model_configurations.hidden_layers = 128;
      });
      const { outputId } = await execute(stack, alice, appData);
      await waitForProgress(stack, alice, outputId);
      const live = readStream(stack, alice, outputId); // follows it live until it ends
      const stop = await call(stack, 'POST', `/${DEMAND}/stop-job/${outputId}`, alice.token);
      expect(stop.statusCode).toBe(202);
      const { job } = (await waitForFinal(stack, outputId, 30_000)) as Json;
      expect(job.status).toBe('Manual Stop');
      const streamed = await live;
      expect(streamed).toContain('event: progress');
      expect(streamed.trim().split('\n\n').at(-1)).toContain('"status":"Manual Stop"');
      const detail = await detailOf(stack, alice, outputId);
      expect(detail.output_logs.at(-1).message).toBe('Status: Manual Stop: Stopped by the user');
      // Another problem's stop path does not reach it.
      expect(
        (await call(stack, 'POST', `/stock-price-prediction/stop-job/${outputId}`, alice.token)).statusCode,
      ).toBe(404);
    },
    120_000,
  );

  it.skipIf(!mode.available)(
    'an output handed out again after its worker was lost (a restart) ends Failed, said in its logs',
    async () => {
      const { job: orphan } = await outputLeftRunning(stack, alice);
      await stack.services.queue.enqueue(orphan.id); // what BullMQ does with a stalled job
      const { job } = (await waitForFinal(stack, orphan.id, 30_000)) as Json;
      expect(job).toMatchObject({ status: 'Failed', error: 'The worker running this job was lost' });
      const detail = await detailOf(stack, alice, orphan.id);
      expect(detail.output_logs.at(-1)).toMatchObject({
        level: 'error',
        message: 'Status: Failed: The worker running this job was lost',
      });
    },
    60_000,
  );

  itOnce('refuses a body that differs from the saved application, naming the field', async () => {
    const appData = smallDemand(stack);
    const appId = await newApplication(stack, alice, appData);
    const body = { ...bodyFor(stack, alice, appId, appData), epochs: 7 };
    const reply = await call(stack, 'POST', `/${DEMAND}/execute-job/${alice.id}`, alice.token, body);
    expect(reply.statusCode).toBe(400);
    const json = reply.json() as Json;
    expect(json.success).toBe(false);
    expect(json.message).toMatch(new RegExp(`^${EXECUTE_FAILED} The request body does not match`));
    expect(json.message).toContain('/epochs');
    expect(json.errors).toEqual([expect.objectContaining({ path: '/epochs', field: 'epochs' })]);
    expect(
      (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json().data.total,
    ).toBe(0);
  });

  itOnce("refuses a row range beyond the dataset's rows on the server", async () => {
    const appData = smallDemand(stack, (d) => (d.preprocess.splitter = { from_index: 1, to_index: 5000 }));
    const appId = await newApplication(stack, alice, appData);
    // What a browser that skipped the check would send (no row count known).
    const problem = stack.services.registry.getProblem(DEMAND);
    const body = mapJobRequest(problem, appData, { applicationId: appId, userId: alice.id }).body;
    const reply = await call(stack, 'POST', `/${DEMAND}/execute-job/${alice.id}`, alice.token, body);
    expect(reply.statusCode).toBe(400);
    const json = reply.json() as Json;
    expect(json.message).toContain('To Index cannot exceed 1001');
    expect(json.errors[0]).toMatchObject({
      path: '/preprocess/splitter/to_index',
      message: 'To Index cannot exceed 1001',
    });
  });

  itOnce("hides execute-job from someone else's user id or application", async () => {
    const appData = smallDemand(stack);
    const appId = await newApplication(stack, alice, appData);
    const body = bodyFor(stack, alice, appId, appData);
    expect(
      (await call(stack, 'POST', `/${DEMAND}/execute-job/${alice.id}`, bob.token, body)).statusCode,
    ).toBe(404);
    const asBob = { ...body };
    expect((await call(stack, 'POST', `/${DEMAND}/execute-job/${bob.id}`, bob.token, asBob)).statusCode).toBe(
      404,
    );
    // The application of another problem is not this problem's.
    expect(
      (await call(stack, 'POST', `/fraud-detection/execute-job/${alice.id}`, alice.token, body)).statusCode,
    ).toBe(404);
    expect((await call(stack, 'POST', `/${DEMAND}/execute-job/${alice.id}`, null, body)).statusCode).toBe(
      401,
    );
  });
});

/** The output's SSE stream as text, read until the server ends it (the output's final status). */
const readStream = (stack: TestStack, user: User, outputId: number) =>
  readEventStream(stack, `/api/application-outputs/${outputId}/stream`, user.token);

async function waitForProgress(stack: TestStack, user: User, outputId: number, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await detailOf(stack, user, outputId);
    if (detail.progress && String(detail.progress.stage).startsWith('Epoch')) return detail;
    if (['Completed', 'Failed', 'Manual Stop'].includes(detail.status))
      throw new Error(`ended ${detail.status}`);
    if (Date.now() > deadline) throw new Error(`output ${outputId} shows no epoch progress`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.each(MODES.filter((m) => m.database === 'pglite' && m.queue === 'in-process'))(
  'output failures in plain words ($queue)',
  (mode) => {
    let stack: TestStack;
    let alice: User;
    beforeAll(async () => {
      // A limit far beyond these tests' runs (the time limit has its own 3 s stack below): with 12 s, the
      // kill -9 and delete runs timed out first on a 2-core machine at load ~20.
      stack = await startStack(mode, { WORKER_TIMEOUT_SECONDS: '120' });
      alice = await signedIn(stack, 'alice@example.com');
      // The limit is for the job: a launch waits for the preloaded Python's imports, which on a busy
      // machine took longer than a short limit, so the first job timed out before it had a process.
      const { launcher } = stack.services;
      if (launcher instanceof WarmWorkerPool) expect(await launcher.warmUp()).toBe(true);
    }, 200_000);
    afterAll(async () => stack?.close());

    const longRun = (s: TestStack) =>
      smallDemand(s, (d) => {
        d.preprocess.splitter = { from_index: 1, to_index: 1001 };
        d.model_configurations.epochs = 100;
        d.model_configurations.hidden_layers = 128;
      });

    it('records a kill -9 from outside as Failed, without calling it memory, with the reason in its logs', async () => {
      const { outputId } = await execute(stack, alice, longRun(stack));
      const pid = await waitForRunning(stack, outputId);
      await waitForProgress(stack, alice, outputId);
      process.kill(pid, 'SIGKILL');
      const { job } = (await waitForFinal(stack, outputId, 30_000)) as Json;
      expect(job.status).toBe('Failed');
      const detail = await detailOf(stack, alice, outputId);
      // No kernel record and no control-group count say memory: someone's kill -9 is not an OOM.
      expect(detail.error).toBe(KILLED_FROM_OUTSIDE);
      expect(detail.output_logs.at(-1)).toMatchObject({
        level: 'error',
        message: `Status: Failed: ${detail.error}`,
      });
    }, 120_000);

    it('records the time limit as the reason', async () => {
      // Its own stack with a 3 s limit, on the stand-in Python (fake-python.ts: it reports progress, then
      // works for ten minutes), so the limit always comes first, and no second preloaded Python imports
      // torch for a run that is killed anyway. What is checked is the server's: the limit, the stop and
      // the words in the output's detail and logs.
      const limited = await startStack(mode, {
        WORKER_TIMEOUT_SECONDS: '3',
        WORKER_PYTHON: writeFakePython().python,
        WORKER_WARM: 'false',
      });
      try {
        const carol = await signedIn(limited, 'carol@example.com');
        const { outputId } = await execute(limited, carol, longRun(limited));
        const { job } = (await waitForFinal(limited, outputId, 60_000)) as Json;
        expect(job.status).toBe('Failed');
        const detail = await detailOf(limited, carol, outputId);
        expect(detail.error).toBe('The job exceeded its time limit of 3 s and was stopped');
        expect(detail.output_logs.at(-1).message).toContain('time limit of 3 s');
      } finally {
        await limited.close();
      }
    }, 120_000);

    it("carries fraud detection's target column and preprocessing to the worker beside the body", async () => {
      const problem = stack.services.registry.getProblem('fraud-detection');
      const example = createExampleAppData(problem);
      const appData = structuredClone(example.appData) as Json;
      appData.preprocess.normalization = '[-1,1]';
      appData.preprocess.missing_values = 'remove_rows';
      const { rows } = await stack.services.db.query<{ id: number }>(
        `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, 'Fraud', $2, $3)
         returning id`,
        [alice.id, problem.id, JSON.stringify(appData)],
      );
      const appId = Number(rows[0]!.id);
      const sample = stack.services.samples.find('credit_card_fraud_synthetic.csv')!;
      const body = mapJobRequest(problem, appData as AppData, {
        rowCount: sample.rows,
        columns: [...sample.columns],
        applicationId: appId,
        userId: alice.id,
      }).body;
      const reply = await call(stack, 'POST', `/fraud-detection/execute-job/${alice.id}`, alice.token, body);
      expect(reply.statusCode, reply.body).toBe(201);
      const outputId = Number((reply.json() as Json).data.output_id);
      const stored = await stack.services.repositories.jobs.find(outputId);
      expect(stored!.params).toEqual(body);
      expect(stored!.extension).toMatchObject({
        dataset: { sha256: sample.sha256, row_count: sample.rows, columns: [...sample.columns] },
        normalization: '[-1,1]',
        missing_values: 'remove_rows',
        target_column: 'Class',
        seed: 42,
      });
      expect(path.isAbsolute(String((stored!.extension as Json).dataset.path))).toBe(true);
      await call(stack, 'POST', `/fraud-detection/stop-job/${outputId}`, alice.token);
      expect(['Manual Stop', 'Completed', 'Failed']).toContain(
        (await waitForFinal(stack, outputId, 30_000)).job.status,
      );
    }, 60_000);

    it('deletes a running output: stopped first, then gone with its files', async () => {
      const { appId, outputId } = await execute(stack, alice, longRun(stack));
      await waitForProgress(stack, alice, outputId);
      const deleted = await call(stack, 'DELETE', `/application-outputs/${outputId}/delete`, alice.token);
      expect(deleted.statusCode).toBe(200);
      expect(await stack.services.repositories.jobs.find(outputId)).toBeNull();
      expect(stack.services.runner.pidOf(outputId)).toBeUndefined();
      expect(existsSync(path.join(stack.config.dataDir, 'outputs', String(outputId)))).toBe(false);
      expect(
        (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json().data,
      ).toEqual({
        total: 0,
        ongoing: 0,
      });
    }, 120_000);

    it('after a restart no output stays Ongoing', async () => {
      const { appId, job } = await outputLeftRunning(stack, alice);
      expect(job.name).toBe(`Demand #${job.id}`);
      expect(
        (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json().data,
      ).toEqual({
        total: 1,
        ongoing: 1,
      });
      await stack.services.jobs.recoverAfterRestart();
      const detail = await detailOf(stack, alice, job.id);
      expect(detail.status).toBe('Failed');
      expect(detail.error).toBe('The server restarted while the job was running');
      expect(
        (await call(stack, 'GET', `/application-outputs/${appId}/count`, alice.token)).json().data.ongoing,
      ).toBe(0);
    });
  },
);
