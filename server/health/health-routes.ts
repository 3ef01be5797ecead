import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Database } from '../db/database';
import type { JobQueue } from '../jobs/job-queue';
import { PUBLIC } from '../platform/reply-schemas';
import type { WorkerRuntimeCheck } from './worker-runtime';

const componentSchema = { type: 'string', description: '"ok" or the error text' } as const;

const healthSchema = {
  type: 'object',
  required: [
    'status',
    'database',
    'queue',
    'worker',
    'worker_checked_at',
    'worker_check_age_seconds',
    'details',
  ],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded'] },
    database: componentSchema,
    queue: componentSchema,
    worker: {
      type: 'string',
      description: '"ok", the error text, or "not checked yet" before the first check has ended',
    },
    worker_checked_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the worker runtime was last checked (it is checked in the background)',
    },
    worker_check_age_seconds: {
      type: ['number', 'null'],
      description: 'Seconds since that check',
    },
    details: {
      type: 'object',
      required: ['database', 'queue', 'worker_versions'],
      properties: {
        database: { type: 'string' },
        queue: { type: 'string' },
        worker_versions: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
} as const;

const liveSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] } },
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

/**
 * GET /health: database, queue and worker runtime, each "ok" or an error text; 200 only when all
 * are ok. The worker runtime is reported from its last background check, never waited on.
 * GET /health/live: the process answers (no database, no Python): for a liveness probe.
 */
export const healthRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { db: Database; queue: JobQueue; runtime: WorkerRuntimeCheck };
}> = async (app, { db, queue, runtime }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'State of the database, the queue and the worker runtime (from its last background check)',
        security: PUBLIC,
        response: {
          200: { ...healthSchema, description: 'Everything is ok' },
          503: {
            ...healthSchema,
            description: 'Something is not ok (or the worker runtime not checked yet)',
          },
        },
      },
    },
    async (_request, reply) => {
      const [database, queueState] = await Promise.all([probe(() => db.ping()), probe(() => queue.health())]);
      const last = runtime.snapshot();
      const worker = last ? (last.result.ok ? 'ok' : (last.result.error ?? 'error')) : 'not checked yet';
      const allOk = database === 'ok' && queueState === 'ok' && worker === 'ok';
      return reply.code(allOk ? 200 : 503).send({
        status: allOk ? 'ok' : 'degraded',
        database,
        queue: queueState,
        worker,
        worker_checked_at: last ? last.checkedAt.toISOString() : null,
        worker_check_age_seconds: last
          ? Math.round((Date.now() - last.checkedAt.getTime()) / 100) / 10
          : null,
        details: {
          database: db.kind,
          queue: queue.mode,
          worker_versions: last?.result.versions ?? {},
        },
      });
    },
  );

  app.get(
    '/health/live',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness: the server process answers (touches neither the database nor Python)',
        security: PUBLIC,
        response: { 200: liveSchema },
      },
    },
    async (_request, reply) => reply.code(200).send({ status: 'ok' }),
  );
};
