import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOWEST_PRIORITY } from '../jobs/job-queue';
import { DEMO_OWNER_EMAIL } from '../stock-demo/demo-models';
import { startStack, type TestStack } from '../test-support/harness';
import pino from 'pino';
import { ApplicationsRepository } from '../applications/applications-repository';
import { getPointer, type AppData } from '../../src/engine';
import { DemoRuns, SMALL_SETTINGS, smallExampleAppData } from './demo-runs';

// The landing page's example runs and their demo data through the real app: the first start queues
// the five examples at the lowest priority under the landing demo account, a restart queues nothing,
// a changed example runs again; the routes serve the runs as they stand with content-hash ETags and
// answer conditional requests with 304. The stack runs no workers: the jobs stay queued unless the
// test records a result itself (a recorded real run, server/analysis/fixtures).

const EXAMPLES = [
  'brain-tumor',
  'demand-forecasting',
  'fraud-detection',
  'portfolio-optimization',
  'stock-price-prediction',
];

interface Row {
  id: string;
  kind: string;
  owner_id: string;
  status: string;
  queue_priority: number;
  app_data: { model_configurations: Record<string, unknown> };
}

describe('landing example runs and their demo data', () => {
  let stack: TestStack;
  const enqueued: { jobId: number; priority: number | undefined }[] = [];
  let ownerId: number;

  /** A second process on the same database (a restart): its own DemoRuns. */
  const restart = () =>
    new DemoRuns({
      db: stack.services.db,
      users: stack.services.repositories.users,
      applications: new ApplicationsRepository(stack.services.db),
      outputs: stack.services.outputs,
      ownerEmail: DEMO_OWNER_EMAIL,
      log: pino({ level: 'silent' }),
    });

  const demoJobs = async () =>
    (
      await stack.services.db.query<Row>(
        `select j.id, j.kind, j.owner_id, j.status, j.queue_priority, j.app_data
           from demo_results d join jobs j on j.id = d.job_id order by j.kind`,
      )
    ).rows;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' }, {}, { runWorkers: false });
    const queue = stack.services.queue;
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = (jobId, priority) => {
      enqueued.push({ jobId, priority });
      return enqueue(jobId, priority);
    };
    ownerId = (await stack.services.repositories.users.findByEmail(DEMO_OWNER_EMAIL))!.id;
  });
  afterAll(() => stack?.close());

  it('answers 404 naming why while no example has run', async () => {
    const reply = await stack.app.inject({ url: '/api/demo-data/fraud-detection/compare' });
    expect(reply.statusCode).toBe(404);
    expect(reply.json().detail).toBe(stack.services.demoData.missingReason());
  });

  it('queues the five examples at the lowest priority under the landing demo account on the first start', async () => {
    const report = await stack.services.demoRuns.start();
    expect(report.refused).toEqual([]);
    expect(report.queued.map((q) => q.problemId).sort()).toEqual(EXAMPLES);
    const jobs = await demoJobs();
    expect(jobs.map((job) => job.kind)).toEqual(EXAMPLES);
    for (const job of jobs) {
      expect(Number(job.owner_id)).toBe(ownerId);
      expect(job.status).toBe('queued');
      expect(job.queue_priority).toBe(LOWEST_PRIORITY);
      // The example's own landing settings are what runs (its form refused none of them).
      const landing = stack.services.registry.getProblem(job.kind).example.landingSettings ?? {};
      // Short settings where the example sets none: no example trains longer than the landing needs
      // (brain tumor's form minimum is 20 epochs).
      if (!('/model_configurations/epochs' in landing))
        expect(Number(job.app_data.model_configurations.epochs ?? 0)).toBeLessThanOrEqual(
          job.kind === 'brain-tumor' ? 20 : 6,
        );
      if (!('/model_configurations/optimizer_step' in landing))
        expect(Number(job.app_data.model_configurations.optimizer_step ?? 0)).toBeLessThanOrEqual(20);
      for (const [pointer, value] of Object.entries(landing))
        expect(getPointer(job.app_data as AppData, pointer), `${job.kind} ${pointer}`).toEqual(value);
    }
    // The brain tumor example trains a model its form offers that is quicker than its own DenseNet.
    const brain = jobs.find((job) => job.kind === 'brain-tumor')!;
    expect(brain.app_data.model_configurations.model).toBe('FCN');
    // Fraud detection's variational classifier keeps the example's 100 optimizer steps (20 caught no fraud).
    const fraud = jobs.find((job) => job.kind === 'fraud-detection')!;
    expect(fraud.app_data.model_configurations.optimizer_step).toBe(100);
    // The stock example's hybrid model trains 30 of its 50 epochs (at 6 it kept the untrained model).
    const stock = jobs.find((job) => job.kind === 'stock-price-prediction')!;
    expect(stock.app_data.model_configurations.epochs).toBe(30);
    expect(enqueued.map((e) => e.jobId).sort()).toEqual(jobs.map((job) => Number(job.id)).sort());
    expect(enqueued.every((e) => e.priority === LOWEST_PRIORITY)).toBe(true);
    // The account owns nothing a user sees: it cannot sign in, and its applications are its own.
    const owner = await stack.services.repositories.users.findByEmail(DEMO_OWNER_EMAIL);
    expect(owner!.disabled).toBe(true);
    const user = await stack.userToken('visitor@example.com');
    const { rows } = await stack.services.db.query<{ id: string }>('select id from users where email = $1', [
      'visitor@example.com',
    ]);
    const list = await stack.app.inject({
      url: `/api/applications/${rows[0]!.id}/all`,
      headers: { authorization: `Bearer ${user}` },
    });
    expect(list.statusCode).toBe(200);
    expect(JSON.stringify(list.json())).not.toContain('Example');
  });

  it("a landing setting the example's form refuses leaves the example's value; a cap stays beside it", () => {
    const problem = structuredClone(stack.services.registry.getProblem('brain-tumor'));
    // QCNN is a quantum model: the example's classical branch refuses it.
    problem.example.landingSettings = { '/model_configurations/model': 'QCNN' };
    const { appData } = smallExampleAppData(problem);
    expect(getPointer(appData, '/model_configurations/model')).toBe(
      problem.example.appData.model_configurations!.model,
    );
    expect(getPointer(appData, '/dataset/training_range/to_index')).toBe(
      SMALL_SETTINGS['/dataset/training_range/to_index'],
    );
    problem.example.landingSettings = {
      '/model_configurations/model': 'FCN',
      '/dataset/training_range/to_index': 90,
    };
    const landing = smallExampleAppData(problem).appData;
    expect(getPointer(landing, '/model_configurations/model')).toBe('FCN');
    // A landing value wins over the cap of the same field.
    expect(getPointer(landing, '/dataset/training_range/to_index')).toBe(90);
  });

  it('queues nothing again on a restart', async () => {
    const before = enqueued.length;
    const report = await restart().start();
    expect(report.queued).toEqual([]);
    expect(report.current.sort()).toEqual(EXAMPLES);
    expect(enqueued.length).toBe(before);
  });

  it('queues an example again when its definition changes, and only that one', async () => {
    const problem = stack.services.registry.getProblem('demand-forecasting');
    const previous = (await demoJobs()).find((job) => job.kind === problem.id)!;
    const original = problem.example.appName;
    problem.example.appName = 'Demand Forecasting Example (changed)';
    try {
      const report = await restart().start();
      expect(report.queued.map((q) => q.problemId)).toEqual(['demand-forecasting']);
      const now = (await demoJobs()).find((job) => job.kind === problem.id)!;
      expect(now.id).not.toBe(previous.id);
      expect(now.queue_priority).toBe(LOWEST_PRIORITY);
      // The old run's application went with it.
      const old = await stack.services.db.query('select 1 from jobs where id = $1', [previous.id]);
      expect(old.rows).toEqual([]);
    } finally {
      problem.example.appName = original;
      // Back to the shipped example: its run is queued again.
      expect((await restart().start()).queued.map((q) => q.problemId)).toEqual(['demand-forecasting']);
    }
  });

  it('queues a run that ended Failed again at the next start', async () => {
    const fraud = (await demoJobs()).find((job) => job.kind === 'fraud-detection')!;
    await stack.services.db.query(`update jobs set status = 'Failed', error = 'boom' where id = $1`, [
      fraud.id,
    ]);
    const report = await restart().start();
    expect(report.queued.map((q) => q.problemId)).toEqual(['fraud-detection']);
  });

  it('tries an example that could not be queued (its dataset not there yet) again until it is queued', async () => {
    const problem = stack.services.registry.getProblem('demand-forecasting');
    await stack.services.db.query(`delete from demo_results where problem_id = $1`, [problem.id]);
    const dataset = problem.example.appData.dataset as { url: string };
    const shipped = dataset.url;
    dataset.url = 'samples/not-written-yet.csv';
    const runs = restart();
    const systemApplications = async () =>
      (await stack.services.db.query('select id from applications where user_id = $1', [ownerId])).rows
        .length;
    const before = await systemApplications();
    try {
      const first = await runs.startAndRetry(3, 100);
      expect(first.refused.map((r) => r.problemId)).toEqual(['demand-forecasting']);
      // The refused run leaves no application behind.
      expect(await systemApplications()).toBe(before);
    } finally {
      dataset.url = shipped;
    }
    await expect
      .poll(async () => (await demoJobs()).some((job) => job.kind === problem.id), { timeout: 5000 })
      .toBe(true);
    runs.stop();
  });

  it('serves a queued run with its status and no interpretation yet', async () => {
    const reply = await stack.app.inject({ url: '/api/demo-data/portfolio-optimization/compare' });
    expect(reply.statusCode).toBe(200);
    const [output] = reply.json().data.outputs;
    expect(output).toMatchObject({ status: 'queued', interpretation: null, metrics: null });
    expect(reply.json().data.application.problem_id).toBe('portfolio-optimization');
  });

  it('serves a Completed run with its real numbers and the analysis engine interpretation, and a Failed one with its reason', async () => {
    const fixture = JSON.parse(
      readFileSync(path.resolve('server/analysis/fixtures/stock-quantum.json'), 'utf8'),
    ) as { result: Record<string, unknown>; execution_time: number };
    const stock = (await demoJobs()).find((job) => job.kind === 'stock-price-prediction')!;
    await stack.services.db.query(
      `update jobs set status = 'Completed', result = $2, started_at = now(), finished_at = now(),
              execution_time = $3 where id = $1`,
      [stock.id, JSON.stringify(fixture.result), fixture.execution_time],
    );
    const reply = await stack.app.inject({ url: '/api/demo-data/stock-price-prediction/compare' });
    expect(reply.statusCode).toBe(200);
    const [output] = reply.json().data.outputs;
    expect(output.id).toBe(Number(stock.id));
    expect(output.status).toBe('Completed');
    expect(output.metrics).toEqual(fixture.result.metrics);
    expect(output.losses).toEqual(fixture.result.losses);
    expect(output.interpretation.technical).toMatch(/\d/);
    expect(output.interpretation.non_technical.length).toBeGreaterThan(20);
    expect(output.interpretation.technical).not.toBe(output.interpretation.non_technical);

    const detail = await stack.app.inject({
      url: `/api/demo-data/stock-price-prediction/outputs/${stock.id}/detail`,
    });
    expect(detail.json().data.result).toEqual(fixture.result);
    const record = await stack.app.inject({
      url: `/api/demo-data/stock-price-prediction/outputs/${stock.id}/record`,
    });
    expect(record.json().data.metrics).toEqual(fixture.result.metrics);
    const records = await stack.app.inject({ url: '/api/demo-data/stock-price-prediction/records' });
    expect(records.json().data.records.map((r: { id: number }) => r.id)).toEqual([Number(stock.id)]);
    // Another output id, even a real one, is not demo data.
    const other = await stack.app.inject({
      url: `/api/demo-data/stock-price-prediction/outputs/${stock.id}0/record`,
    });
    expect(other.statusCode).toBe(404);

    const brain = (await demoJobs()).find((job) => job.kind === 'brain-tumor')!;
    await stack.services.db.query(
      `update jobs set status = 'Failed', error = 'Worker ran out of memory', finished_at = now() where id = $1`,
      [brain.id],
    );
    const failed = await stack.app.inject({ url: '/api/demo-data/brain-tumor/compare' });
    expect(failed.json().data.outputs[0]).toMatchObject({
      status: 'Failed',
      error: 'Worker ran out of memory',
    });
  });

  it('sends a content-hash ETag and Last-Modified, 304 to a matching If-None-Match, and a new tag when the run changes', async () => {
    const url = '/api/demo-data/portfolio-optimization/compare';
    const first = await stack.app.inject({ url });
    const etag = first.headers.etag as string;
    expect(etag).toBe(`"${createHash('sha256').update(first.rawPayload).digest('base64url')}"`);
    expect(first.headers['cache-control']).toBe('no-cache');
    expect(first.headers['last-modified']).toBeTruthy();
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await stack.app.inject({ url, headers: { 'if-none-match': header } });
      expect(again.statusCode, header).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    const stale = await stack.app.inject({ url, headers: { 'if-none-match': '"stale"' } });
    expect(stale.statusCode).toBe(200);
    const since = first.headers['last-modified'] as string;
    expect((await stack.app.inject({ url, headers: { 'if-modified-since': since } })).statusCode).toBe(304);
    const earlier = new Date(Date.parse(since) - 60_000).toUTCString();
    expect((await stack.app.inject({ url, headers: { 'if-modified-since': earlier } })).statusCode).toBe(200);

    const portfolio = (await demoJobs()).find((job) => job.kind === 'portfolio-optimization')!;
    await stack.services.db.query(`update jobs set status = 'running', started_at = now() where id = $1`, [
      portfolio.id,
    ]);
    const changed = await stack.app.inject({ url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json().data.outputs[0].status).toBe('running');
  });

  it('refuses malformed ids with 400 naming the field, and unknown problems with 404', async () => {
    for (const url of ['/api/demo-data/UPPER/records', '/api/demo-data/..%2F..%2Fetc/records']) {
      const reply = await stack.app.inject({ url });
      expect(reply.statusCode, url).toBe(400);
      expect(reply.json().errors[0].field).toBe('/problemId');
    }
    const badOutput = await stack.app.inject({ url: '/api/demo-data/fraud-detection/outputs/abc/detail' });
    expect(badOutput.statusCode).toBe(400);
    expect(badOutput.json().errors[0].field).toBe('/outputId');
    const unknown = await stack.app.inject({ url: '/api/demo-data/vehicle-routing/compare' });
    expect(unknown.statusCode).toBe(404);
  });
});
