import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_ID } from '../platform/id-schemas';
import { envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { sendConditional } from '../platform/conditional-get';
import type { DemoRequest, DemoResultsData } from './demo-results-data';

const problemId = { type: 'string', pattern: '^[a-z0-9-]{1,100}$' } as const;
const outputId = { type: 'integer', minimum: 1, maximum: MAX_ID } as const;
const problemParams = { type: 'object', required: ['problemId'], properties: { problemId } } as const;
const outputParams = {
  type: 'object',
  required: ['problemId', 'outputId'],
  properties: { problemId, outputId },
} as const;

const response = (what: string) => ({
  200: { ...envelope({ type: 'object', additionalProperties: true }), description: what },
  304: {
    description: 'Not modified: the copy the client holds (If-None-Match / If-Modified-Since) is current',
  },
  ...errorReplies(400, 404),
});

/**
 * Send one demo data reply with a strong ETag (content hash) and Last-Modified, or 304 when the
 * request's validators show the client's copy is current (sendConditional). `no-cache`: the browser
 * keeps the reply (Cache API) but asks every time, so a run that finishes is seen at once.
 */
async function sendDemoFile(
  store: DemoResultsData,
  what: DemoRequest,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const file = await store.read(what);
  if (!file) {
    const reason =
      what.kind === 'compare' || what.kind === 'records' ? store.missingReason() : 'No such demo data';
    return reply.code(404).send(errorBody(reason));
  }
  return sendConditional(request, reply, { ...file, type: 'application/json; charset=utf-8' });
}

/**
 * The landing page's demo data (spec section 7, "Cached GET of static demo data files"): the
 * outputs of the server's own runs of the example applications (demo-runs.ts), per problem id.
 * Public, read-only.
 */
export const demoDataRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { store: DemoResultsData };
}> = async (app, { store }) => {
  const tags = ['demo-data'];
  app.get(
    '/demo-data/:problemId/records',
    {
      schema: {
        tags,
        summary: "The example application's output records (the runs exported for the landing page)",
        security: PUBLIC,
        params: problemParams,
        response: response(
          'data: { application, records: [{ id, name, status, created_at, completed_at }] }',
        ),
      },
    },
    (request, reply) =>
      sendDemoFile(store, { kind: 'records', problemId: request.params.problemId }, request, reply),
  );
  app.get(
    '/demo-data/:problemId/compare',
    {
      schema: {
        tags,
        summary:
          "The example's run: status, training data facts, losses, confusion matrix and its interpretation",
        security: PUBLIC,
        params: problemParams,
        response: response('data: { application, outputs: [...] } one entry per example run'),
      },
    },
    (request, reply) =>
      sendDemoFile(store, { kind: 'compare', problemId: request.params.problemId }, request, reply),
  );
  app.get(
    '/demo-data/:problemId/outputs/:outputId/detail',
    {
      schema: {
        tags,
        summary: 'One exported output: its job, parameters and results',
        security: PUBLIC,
        params: outputParams,
        response: response('data: the output detail'),
      },
    },
    (request, reply) => sendDemoFile(store, { kind: 'detail', ...request.params }, request, reply),
  );
  app.get(
    '/demo-data/:problemId/outputs/:outputId/record',
    {
      schema: {
        tags,
        summary: 'One exported output record: its metrics and training history',
        security: PUBLIC,
        params: outputParams,
        response: response('data: the output record'),
      },
    },
    (request, reply) => sendDemoFile(store, { kind: 'record', ...request.params }, request, reply),
  );
};
