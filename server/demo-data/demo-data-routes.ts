import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_ID } from '../platform/id-schemas';
import { envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { demoFile, notModified, type DemoDataStore } from './demo-data-store';

/** Said by every demo-data route until `npm run demo:export` has written the files. */
export const NOT_GENERATED =
  'Demo data has not been generated yet: it is exported from completed runs of the example applications (npm run demo:export).';

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
 * Send one published file with a strong ETag (content hash) and Last-Modified, or 304 when the
 * request's validators show the client's copy is current. `no-cache`: the browser keeps the file
 * (Cache API) but asks every time, so a new export is seen at once.
 */
async function sendDemoFile(
  store: DemoDataStore,
  relative: string,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const file = await store.read(relative);
  if (!file) {
    return reply.code(404).send(errorBody(store.generated() ? 'No such demo data' : NOT_GENERATED));
  }
  reply
    .header('etag', file.etag)
    .header('last-modified', file.lastModified.toUTCString())
    .header('cache-control', 'no-cache');
  const headers = request.headers as { 'if-none-match'?: string; 'if-modified-since'?: string };
  if (notModified(file, headers)) return reply.code(304).send();
  return reply.code(200).type('application/json; charset=utf-8').send(file.body);
}

/**
 * The landing page's static demo data (spec section 7, "Cached GET of static demo data files"):
 * outputs of real runs of the example applications, per problem id, exported by
 * server/demo-data/export-demo-data.ts. Public, read-only.
 */
export const demoDataRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { store: DemoDataStore } }> = async (
  app,
  { store },
) => {
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
    (request, reply) => sendDemoFile(store, demoFile.records(request.params.problemId), request, reply),
  );
  app.get(
    '/demo-data/:problemId/compare',
    {
      schema: {
        tags,
        summary:
          "The comparison of the example's classical and quantum runs (training data, losses, confusion)",
        security: PUBLIC,
        params: problemParams,
        response: response('data: { outputs: [...] } one entry per compared output'),
      },
    },
    (request, reply) => sendDemoFile(store, demoFile.compare(request.params.problemId), request, reply),
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
    (request, reply) =>
      sendDemoFile(store, demoFile.detail(request.params.problemId, request.params.outputId), request, reply),
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
    (request, reply) =>
      sendDemoFile(store, demoFile.record(request.params.problemId, request.params.outputId), request, reply),
  );
};
