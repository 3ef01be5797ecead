import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { JobEventRecord, JobRecord } from './jobs-repository';
import { isFinal } from './job-states';
import type { JobsService } from './jobs-service';
import { envelope } from '../platform/reply-schemas';

const jobSchema = {
  type: 'object',
  required: [
    'id',
    'kind',
    'owner_id',
    'status',
    'params',
    'result',
    'error',
    'created_at',
    'started_at',
    'finished_at',
    'execution_time',
  ],
  properties: {
    id: { type: 'integer' },
    kind: { type: 'string' },
    owner_id: { type: 'integer' },
    status: { type: 'string', description: 'queued, running, Completed, Failed or Manual Stop' },
    params: { type: 'object', additionalProperties: true },
    result: { type: ['object', 'null'], additionalProperties: true },
    error: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    started_at: { type: ['string', 'null'] },
    finished_at: { type: ['string', 'null'] },
    execution_time: { type: ['number', 'null'] },
  },
} as const;

const eventSchema = {
  type: 'object',
  required: ['seq', 'type', 'payload', 'created_at'],
  properties: {
    seq: { type: 'integer' },
    type: { type: 'string' },
    payload: { type: 'object', additionalProperties: true },
    created_at: { type: 'string' },
  },
} as const;

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1 } },
} as const;

const notFound = (reply: FastifyReply) => reply.code(404).send({ success: false, message: 'Job not found' });

const serialise = (job: JobRecord) => ({
  ...job,
  created_at: new Date(job.created_at).toISOString(),
  started_at: job.started_at ? new Date(job.started_at).toISOString() : null,
  finished_at: job.finished_at ? new Date(job.finished_at).toISOString() : null,
});

/** The quantum self-test diagnostic and the generic job endpoints (detail, live events, stop). */
export const jobsRoutes: FastifyPluginAsync<{ jobs: JobsService }> = async (app, { jobs }) => {
  app.post<{ Body: { shots?: number; seed?: number; delay_seconds?: number } | null }>(
    '/diagnostics/self-test',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['diagnostics'],
        summary: 'Start the quantum self-test: a 2-qubit Bell circuit on Qiskit Aer',
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            shots: { type: 'integer', minimum: 1, maximum: 100000, default: 1024 },
            seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
            delay_seconds: {
              type: 'number',
              minimum: 0,
              maximum: 600,
              description:
                'Extra time the worker waits while reporting progress, to exercise stop and timeouts',
            },
          },
        },
        response: { 201: envelope(jobSchema) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const params = {
        shots: body.shots ?? 1024,
        ...(body.seed !== undefined && { seed: body.seed }),
        ...(body.delay_seconds !== undefined && { delay_seconds: body.delay_seconds }),
      };
      const job = await jobs.submit(request.currentUser!, 'self-test', params);
      return reply.code(201).send({ success: true, data: serialise(job) });
    },
  );

  app.get(
    '/jobs',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'The latest jobs of the signed-in user',
        response: {
          200: envelope({ type: 'array', items: jobSchema }),
        },
      },
    },
    async (request) => ({ success: true, data: (await jobs.list(request.currentUser!)).map(serialise) }),
  );

  app.get<{ Params: { id: number } }>(
    '/jobs/:id',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'A job with its status timeline, logs, metrics, charts and result',
        params: idParams,
        response: {
          200: envelope({
            type: 'object',
            required: ['job', 'events'],
            properties: { job: jobSchema, events: { type: 'array', items: eventSchema } },
          }),
        },
      },
    },
    async (request, reply) => {
      const job = await jobs.findVisible(request.currentUser!, request.params.id);
      if (!job) return notFound(reply);
      const events = await jobs.repository.events(job.id);
      return { success: true, data: { job: serialise(job), events } };
    },
  );

  app.post<{ Params: { id: number } }>(
    '/jobs/:id/stop',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'Stop a queued or running job (recorded as Manual Stop)',
        params: idParams,
      },
    },
    async (request, reply) => {
      const job = await jobs.stop(request.currentUser!, request.params.id);
      if (!job) return notFound(reply);
      return reply.code(202).send({ success: true, message: 'Stop requested' });
    },
  );

  // Server-sent events: the stored events after `after`, then live ones, until the job ends.
  app.get<{ Params: { id: number }; Querystring: { after?: number } }>(
    '/jobs/:id/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'Live job events as text/event-stream',
        params: idParams,
        querystring: { type: 'object', properties: { after: { type: 'integer', minimum: -1 } } },
      },
    },
    async (request, reply) => {
      const job = await jobs.findVisible(request.currentUser!, request.params.id);
      if (!job) return notFound(reply);
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
      });
      let lastSeq = request.query.after ?? -1;
      let ended = false;
      const finish = () => {
        if (ended) return;
        ended = true;
        unsubscribe();
        clearInterval(keepAlive);
        raw.end();
      };
      const send = (event: JobEventRecord) => {
        if (ended || event.seq <= lastSeq) return;
        lastSeq = event.seq;
        raw.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        if (event.type === 'status' && isFinal(String(event.payload.status))) finish();
      };
      const buffered: JobEventRecord[] = [];
      let replaying = true;
      const unsubscribe = jobs.subscribe(job.id, (event) => (replaying ? buffered.push(event) : send(event)));
      const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
      request.raw.on('close', finish);
      for (const event of await jobs.repository.events(job.id, lastSeq)) send(event);
      replaying = false;
      for (const event of buffered.sort((a, b) => a.seq - b.seq)) send(event);
    },
  );
};
