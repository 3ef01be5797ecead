import type { FastifyPluginAsync } from 'fastify';
import type { Database } from '../db/database';
import type { JobQueue } from '../jobs/job-queue';
import type { WorkerRuntimeCheck } from './worker-runtime';

const componentSchema = { type: 'string', description: '"ok" or the error text' } as const;

const healthSchema = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    database: componentSchema,
    queue: componentSchema,
    worker: componentSchema,
    details: { type: 'object', additionalProperties: true },
  },
} as const;

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error)) || 'error';

async function probe(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    return describe(error);
  }
}

/** GET /health: database, queue and worker runtime, each "ok" or an error text; 200 only when all are ok. */
export const healthRoutes: FastifyPluginAsync<{
  db: Database;
  queue: JobQueue;
  runtime: WorkerRuntimeCheck;
}> = async (app, { db, queue, runtime }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'State of the database, the queue and the worker runtime',
        response: { 200: healthSchema, 503: healthSchema },
      },
    },
    async (_request, reply) => {
      const [database, queueState, worker] = await Promise.all([
        probe(() => db.ping()),
        probe(() => queue.health()),
        runtime
          .check()
          .then((r) => (r.ok ? { state: 'ok', versions: r.versions } : { state: r.error ?? 'error' })),
      ]);
      const allOk = database === 'ok' && queueState === 'ok' && worker.state === 'ok';
      return reply.code(allOk ? 200 : 503).send({
        status: allOk ? 'ok' : 'degraded',
        database,
        queue: queueState,
        worker: worker.state,
        details: { database: db.kind, queue: queue.mode, worker_versions: worker.versions ?? {} },
      });
    },
  );
};
