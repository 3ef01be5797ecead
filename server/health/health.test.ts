import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../db/database';
import type { JobQueue } from '../jobs/job-queue';
import { writeFakePython } from '../test-support/fake-python';
import { healthRoutes } from './health-routes';
import { WorkerRuntimeCheck } from './worker-runtime';

interface HealthBody {
  status: string;
  worker: string;
  worker_checked_at: string | null;
  worker_check_age_seconds: number | null;
  details: { worker_versions: Record<string, string> };
}

const healthyDb = { kind: 'pglite', ping: async () => undefined } as unknown as Database;
const queue = { mode: 'in-process', health: async () => undefined } as unknown as JobQueue;

describe('health', () => {
  let app: FastifyInstance;
  let runtime: WorkerRuntimeCheck;
  afterEach(async () => {
    await runtime?.stop();
    await app?.close();
  });

  const serve = async (db: Database, options: ConstructorParameters<typeof WorkerRuntimeCheck>[1]) => {
    const fake = writeFakePython();
    runtime = new WorkerRuntimeCheck(fake.python, options);
    app = Fastify();
    await app.register(healthRoutes, { prefix: '/api', db, queue, runtime });
    return fake;
  };

  const timed = async (url: string) => {
    const started = Date.now();
    const reply = await app.inject({ url });
    return { reply, ms: Date.now() - started, body: reply.json() as HealthBody };
  };

  it('answers at once from the last check while a slow check runs, and reports its age', async () => {
    const fake = await serve(healthyDb, { intervalMs: 300 });
    expect((await runtime.start()).ok).toBe(true);
    fake.setHealthDelay(3);
    await new Promise((resolve) => setTimeout(resolve, 400)); // the result is now due for a refresh
    void runtime.refresh(); // a slow check is under way

    const { reply, ms, body } = await timed('/api/health');
    expect(ms).toBeLessThan(1000);
    expect(reply.statusCode).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      worker: 'ok',
      details: { worker_versions: { 'fake-python': '1' } },
    });
    expect(body.worker_check_age_seconds).toBeGreaterThanOrEqual(0.3);
    const checkedAt = Date.parse(body.worker_checked_at!);

    // The background check ends and the next answer carries its newer time.
    await runtime.refresh();
    const later = await timed('/api/health');
    expect(Date.parse(later.body.worker_checked_at!)).toBeGreaterThan(checkedAt);
    expect(later.body.worker_check_age_seconds).toBeLessThan(1);
  });

  it('says the worker is not checked yet before the first check ends, without waiting for it', async () => {
    const fake = await serve(healthyDb, {});
    fake.setHealthDelay(3);
    const { reply, ms, body } = await timed('/api/health');
    expect(ms).toBeLessThan(1000);
    expect(reply.statusCode).toBe(503);
    expect(body).toMatchObject({ worker: 'not checked yet', worker_checked_at: null });
  });

  it('answers liveness without the database or Python', async () => {
    const stuckDb = { kind: 'pglite', ping: () => new Promise(() => undefined) } as unknown as Database;
    const fake = await serve(stuckDb, {});
    fake.setHealthDelay(30);
    const refresh = vi.spyOn(runtime, 'refresh');
    const { reply, ms } = await timed('/api/health/live');
    expect(ms).toBeLessThan(500);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ status: 'ok' });
    expect(refresh).not.toHaveBeenCalled();
  });
});
