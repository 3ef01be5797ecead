import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { eventStreamSchema, streamJobEvents } from './event-stream';
import type { JobRecord } from './jobs-repository';
import { JOB_STATUSES } from './job-states';
import type { JobsService } from './jobs-service';
import { idParams, MAX_ID } from '../platform/id-schemas';
import { acknowledgement, BODY_ERRORS, envelope, errorBody, errorReplies } from '../platform/reply-schemas';
import { selfTestParamsSchema } from '../../src/generated/worker-contract';

/** The largest sequence number or id the database stores (PostgreSQL integer). */

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
    status: { type: 'string', enum: JOB_STATUSES, description: 'Where the job is in its lifecycle' },
    params: { type: 'object', additionalProperties: true },
    result: { type: ['object', 'null'], additionalProperties: true },
    error: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    started_at: { type: ['string', 'null'] },
    finished_at: { type: ['string', 'null'], description: 'Set exactly when the job reaches a final status' },
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

// The worker's own params schema (worker/qmlstudio_worker/schemas/self-test.params.schema.json, emitted
// by codegen): the route accepts exactly what the worker does. A null body means every default.
const selfTestBody = { ...selfTestParamsSchema, type: ['object', 'null'] } as const;

const listQuery = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Jobs per page' },
    before: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ID,
      description: 'Only jobs with a smaller id: the `next_before` of the previous page',
    },
  },
} as const;

const JOB_NOT_FOUND = 'Job not found';

const serialise = (job: JobRecord) => ({
  ...job,
  created_at: new Date(job.created_at).toISOString(),
  started_at: job.started_at ? new Date(job.started_at).toISOString() : null,
  finished_at: job.finished_at ? new Date(job.finished_at).toISOString() : null,
});

/** The quantum self-test diagnostic and the generic job endpoints (list, detail, live events, stop). */
export const jobsRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { jobs: JobsService } }> = async (
  app,
  { jobs },
) => {
  app.post(
    '/diagnostics/self-test',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['diagnostics'],
        summary: 'Start the quantum self-test: a 2-qubit Bell circuit on Qiskit Aer',
        body: selfTestBody,
        response: { 201: envelope(jobSchema), ...errorReplies(...BODY_ERRORS, 401, 403) },
      },
    },
    async (request, reply) => {
      // The route's validation has filled in the schema's defaults; for a null body the worker does.
      const params = request.body ?? {};
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
        summary: "The signed-in user's jobs, newest first, a page at a time",
        querystring: listQuery,
        response: {
          200: envelope({
            type: 'object',
            required: ['jobs', 'next_before'],
            properties: {
              jobs: { type: 'array', items: jobSchema },
              next_before: {
                type: ['integer', 'null'],
                description: 'Pass as `before` for the next page; null on the last page',
              },
            },
          }),
          ...errorReplies(400, 401),
        },
      },
    },
    async (request, reply) => {
      const page = await jobs.list(request.currentUser!, {
        limit: request.query.limit ?? 20,
        before: request.query.before ?? null,
      });
      return reply
        .code(200)
        .send({ success: true, data: { jobs: page.jobs.map(serialise), next_before: page.nextBefore } });
    },
  );

  app.get(
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
          ...errorReplies(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const job = await jobs.findVisible(request.currentUser!, request.params.id);
      if (!job) return reply.code(404).send(errorBody(JOB_NOT_FOUND));
      const events = await jobs.events(job.id);
      return reply.code(200).send({ success: true, data: { job: serialise(job), events } });
    },
  );

  app.post(
    '/jobs/:id/stop',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'Stop a queued or running job (recorded as Manual Stop); accepted, not yet done',
        params: idParams,
        response: {
          202: { ...acknowledgement, description: 'Stop requested; the job records Manual Stop soon' },
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const job = await jobs.stop(request.currentUser!, request.params.id);
      if (!job) return reply.code(404).send(errorBody(JOB_NOT_FOUND));
      return reply.code(202).send({ success: true, message: 'Stop requested' });
    },
  );

  // Server-sent events: the stored events after `after`, then live ones, until the job ends. The
  // query is validated before the stream starts, so a bad `after` is a 400 with headers.
  app.get(
    '/jobs/:id/events',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['jobs'],
        summary: 'Job events as text/event-stream: the stored ones after `after`, then live until the end',
        params: idParams,
        ...eventStreamSchema,
      },
    },
    async (request, reply) => {
      const job = await jobs.findVisible(request.currentUser!, request.params.id);
      if (!job) return reply.code(404).send(errorBody(JOB_NOT_FOUND));
      await streamJobEvents({
        request,
        reply,
        jobs,
        jobId: job.id,
        after: request.query.after ?? -1,
        current: () => jobs.findVisible(request.currentUser!, job.id),
      });
    },
  );
};
