import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { capTraining } from '../demo-data/demo-runs';
import { isFinal } from '../jobs/job-states';
import {
  executeApplication,
  MODES,
  outputDetail,
  REDIS_URL,
  startStack,
  submitSelfTest,
  waitForFinal,
  type TestStack,
} from '../test-support/harness';

// Each financial example, with the example's own settings (quantum ones included) but its training
// shortened to the form's least epochs and 10 optimizer steps, runs to Completed through execute-job and
// the REAL worker in the embedded default, and its output carries metrics, a baseline and charts. Nothing
// checked here depends on the training's length (at their own lengths the four took 95 CPU-s, 33 with
// the whole file now; how good the examples are at their own settings is bench:science's).
// The trainings do not depend on the queue (a BullMQ job to Completed with its model is outputs.test.ts's,
// demand forecasting on both databases). What BullMQ adds for a long training is its job lock, which must
// be renewed while the job runs: a job that outlives the lock and BullMQ's stalled check after it, yet is
// never found stalled nor handed out again, proves the renewal. A self-test that sleeps past both (on a
// stack with a 10-s lock, WORKER_LOCK_SECONDS) proves it for the CPU of a sleep.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const EXAMPLES = [
  'stock-price-prediction',
  'portfolio-optimization',
  'fraud-detection',
  'demand-forecasting',
] as const;
/** Training lengths at most these (by form pointer): the form's least epochs, 10 optimizer steps. */
const SHORT_TRAINING = { '/model_configurations/epochs': 5, '/model_configurations/optimizer_step': 10 };
/** The problems whose outputs keep a model for inference. */
const WITH_MODEL = new Set(['stock-price-prediction', 'fraud-detection', 'demand-forecasting']);

const IN_PROCESS = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;
const BULLMQ = MODES.find((m) => m.database === 'pglite' && m.queue === 'bullmq')!;
/** The stack's job lock (WORKER_LOCK_SECONDS): renewed every 5 s, the stalled check every 5 s. */
const LOCK_SECONDS = 10;
/**
 * The self-test's sleep: past the job lock and the stalled check after it. Without renewal the lock
 * expires at 10 s and the check at most 5 s later finds the job stalled while it still runs.
 */
const PAST_THE_LOCK_SECONDS = 20;

// The long BullMQ job starts before the examples and sleeps while they train: it adds no wall time.
let bullmq: TestStack | undefined;
let longJob: Promise<number> | undefined;
beforeAll(async () => {
  if (!BULLMQ.available) return;
  bullmq = await startStack(BULLMQ, {
    WORKER_CONCURRENCY: '1',
    WORKER_TIMEOUT_SECONDS: '600',
    WORKER_LOCK_SECONDS: String(LOCK_SECONDS),
  });
  longJob = submitSelfTest(bullmq, { shots: 16, delay_seconds: PAST_THE_LOCK_SECONDS }).then((j) => j.id);
  await longJob;
});
afterAll(() => bullmq?.close());

describe('the financial examples on in-process', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(IN_PROCESS, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
    const token = await stack.userToken('examples@example.com');
    const { rows } = await stack.services.db.query<{ id: number }>('select id from users where email = $1', [
      'examples@example.com',
    ]);
    owner = { id: Number(rows[0]!.id), token };
  });
  afterAll(() => stack?.close());

  for (const problemId of EXAMPLES) {
    it(`${problemId}: the example, its training shortened, runs to Completed with metrics, a baseline and charts`, async () => {
      const problem = stack.services.registry.getProblem(problemId);
      const example = createExampleAppData(problem);
      const appData = capTraining(problem, example.appData, example.context, SHORT_TRAINING);
      const { appName } = example;
      expect(appData, "a shorter training than the example's own").not.toEqual(example.appData);
      const { outputId, final } = await executeApplication(
        stack,
        owner,
        {
          problemId,
          appName,
          appData: appData as AppData,
        },
        480_000,
      );
      expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

      const detail = await outputDetail<Json>(stack, owner.token, outputId);
      expect(Object.keys(detail.metrics).length).toBeGreaterThan(0);
      expect(Object.keys(detail.baseline.metrics).length).toBeGreaterThan(0);
      expect(detail.charts.length).toBeGreaterThanOrEqual(3);
      const sample = stack.services.samples.find(
        String((appData as { dataset?: { url?: string } }).dataset?.url)
          .split('/')
          .pop()!,
      );
      expect(detail.dataset).toMatchObject({ sha256: sample!.sha256 });
      if (WITH_MODEL.has(problemId)) expect(detail.trained_model_path).toMatch(/^outputs\//);
      // The job's own deadline above, not the suite's 60 s: the fraud VQC passed 60 s on a loaded machine.
    }, 500_000);
  }
});

describe.skipIf(!BULLMQ.available)('a BullMQ job that outlives its lock', () => {
  it('runs to Completed once: its lock is renewed, never found stalled nor handed out again', async () => {
    const stack = bullmq!;
    const jobId = await longJob!;
    // Polled once a second: the sleep is long and the examples train meanwhile.
    const deadline = Date.now() + 300_000;
    for (;;) {
      const job = await stack.services.repositories.jobs.find(jobId);
      if (isFinal(job!.status)) break;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job!.status}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const { job, events } = await waitForFinal(stack, jobId);
    expect(job.status, JSON.stringify(events.at(-1))).toBe('Completed');
    const statuses = events.filter((e) => e.type === 'status').map((e) => e.payload.status);
    expect(statuses).toEqual(['queued', 'running', 'Completed']);

    // BullMQ's own record of the job: completed, started once, never found stalled.
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(`${stack.config.redisPrefix}-jobs`, { connection: redis });
    try {
      const held = (await queue.getJobs(['completed', 'failed', 'active', 'waiting'])).filter(
        (j) => (j?.data as { jobId?: number } | undefined)?.jobId === jobId,
      );
      expect(held).toHaveLength(1);
      expect(await held[0]!.getState()).toBe('completed');
      expect(held[0]!.stalledCounter).toBe(0);
      expect(held[0]!.attemptsStarted).toBe(1);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  }, 360_000);
});
