import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { isAdmin } from '../auth/auth-plugin';
import { MAX_ID } from '../platform/id-schemas';
import { envelope, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { notFoundBody } from '../platform/error-handler';
import type { SampleCatalog } from './sample-catalog';

const sampleSchema = {
  type: 'object',
  required: ['file', 'label', 'rows', 'columns', 'synthetic', 'source', 'licence', 'sha256'],
  properties: {
    file: { type: 'string', description: 'File name, e.g. apple_google_stock.csv' },
    label: { type: 'string', description: 'What users see; the synthetic file says so in it' },
    rows: { type: 'integer', description: 'Data rows (the header not counted)' },
    columns: { type: 'array', items: { type: 'string' } },
    synthetic: { type: 'boolean', description: 'Generated rows, not observed data' },
    source: { type: 'string' },
    licence: { type: 'string' },
    sha256: { type: 'string' },
  },
} as const;

const downloadParams = {
  type: 'object',
  required: ['file', 'user', 'email'],
  properties: {
    file: { type: 'string', minLength: 1, maxLength: 100, description: 'e.g. apple_google_stock.csv' },
    user: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's user id" },
    email: { type: 'string', minLength: 1, maxLength: 254, description: "The caller's e-mail address" },
  },
} as const;

/**
 * GET /samples (the shipped sample datasets, public) and GET /download/{file}/{user}/{email} (one
 * sample file as CSV, for the signed-in user the path names; anyone else's path is not found).
 */
export const samplesRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { samples: SampleCatalog };
}> = async (app, { samples }) => {
  app.get(
    '/samples',
    {
      schema: {
        tags: ['samples'],
        summary: 'The sample datasets shipped with the platform: label, rows, columns, source, licence',
        security: PUBLIC,
        response: { 200: envelope({ type: 'array', items: sampleSchema }) },
      },
    },
    async () => ({ success: true, data: samples.list() }),
  );

  app.get(
    '/download/:file/:user/:email',
    {
      schema: {
        tags: ['samples'],
        summary: "Download a sample dataset as CSV (the path names the signed-in user's id and e-mail)",
        params: downloadParams,
        response: {
          200: { description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...errorReplies(400, 401, 404),
        },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const { file, user, email } = request.params;
      const own = caller.id === user && caller.email.toLowerCase() === email.toLowerCase();
      const sample = samples.find(file);
      if (!sample || !(own || isAdmin(caller))) return reply.code(404).send(notFoundBody());
      return (
        reply
          .code(200)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${sample.file}"`)
          .header('cache-control', 'private, no-cache')
          // Fastify streams a ReadStream as it is; the type provider reads the reply schema as a string.
          .send(createReadStream(samples.pathOf(sample.file)) as unknown as string)
      );
    },
  );
};
