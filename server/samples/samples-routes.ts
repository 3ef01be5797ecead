import { createReadStream } from 'node:fs';
import path from 'node:path';
import { stat } from 'node:fs/promises';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { isAdmin } from '../auth/auth-plugin';
import { MAX_ID } from '../platform/id-schemas';
import { envelope, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { notFoundBody } from '../platform/error-handler';
import type { SampleCatalog } from './sample-catalog';
import { pathNamesCaller } from '../datasets/datasets';
import type { DatasetStore } from '../datasets/dataset-store';
import { FileMissing } from '../storage/file-store';
import { CsvFormulaEscape } from '../datasets/csv-formula-escape';

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
    file: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description:
        'A sample as the manifest names it (a CSV table, a .mat dataset or an example image, URL-encoded) or the stored name of an upload',
    },
    user: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: `The caller's user id (1 to ${MAX_ID}) or name`,
    },
    email: { type: 'string', minLength: 1, maxLength: 254, description: "The caller's e-mail address" },
  },
} as const;

/**
 * GET /samples (the shipped sample datasets, public) and GET /download/{file}/{user}/{email} (one
 * sample file, or one of the caller's uploaded datasets, as CSV, for the signed-in user the path
 * names by id or name and e-mail; anyone else's path or upload is not found; admins read any).
 */
export const samplesRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { samples: SampleCatalog; datasets?: DatasetStore };
}> = async (app, { samples, datasets }) => {
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
        summary:
          "Download a sample dataset or one of the caller's uploads as CSV (the path names the signed-in user's id or name, and e-mail); cells a spreadsheet would run as formulas (=, +, -, @, tab, CR; not plain numbers) come as quoted text with a leading apostrophe",
        params: downloadParams,
        response: {
          200: {
            description: 'The CSV file (a .mat or .zip dataset as bytes; an example image as PNG)',
            content: {
              'text/csv': { schema: { type: 'string' } },
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...errorReplies(400, 401, 404),
        },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const { file, user, email } = request.params;
      const own = pathNamesCaller(caller, user, email);
      let found: { path: string; disposition: string } | null = null;
      if (samples.serves(file)) {
        if (own || isAdmin(caller)) {
          found = { path: samples.pathOf(file), disposition: `attachment; filename="${path.basename(file)}"` };
        }
      } else if (datasets) {
        const upload = isAdmin(caller)
          ? await datasets.find(file)
          : own
            ? await datasets.findOwned(caller.id, file)
            : null;
        if (upload) {
          // Uploaded to another server: its copy comes from the file store first.
          const file = await datasets.localPath(upload).catch((error: unknown) => {
            if (error instanceof FileMissing) return null;
            throw error;
          });
          if (file) found = { path: file, disposition: attachment(upload.original_name) };
        }
      }
      if (!found || !(await stat(found.path).catch(() => null))?.isFile()) {
        return reply.code(404).send(notFoundBody());
      }
      const type = contentTypeOf(found.path);
      const stream = createReadStream(found.path);
      // A CSV is opened in spreadsheets: cells that would run as formulas go out as text.
      const body = type.startsWith('text/csv') ? stream.pipe(new CsvFormulaEscape()) : stream;
      return (
        reply
          .code(200)
          .header('content-type', type)
          .header('content-disposition', found.disposition)
          .header('cache-control', 'private, no-cache')
          // Fastify streams a stream as it is; the type provider reads the reply schema as a string.
          .send(body as unknown as string)
      );
    },
  );
};

/** A CSV table as text; a brain tumor dataset (.mat, .zip of .mat files) as bytes. */
function contentTypeOf(file: string): string {
  if (/\.png$/i.test(file)) return 'image/png';
  return /\.(mat|zip)$/i.test(file) ? 'application/octet-stream' : 'text/csv; charset=utf-8';
}

/** Content-Disposition for a download under the user's name for it (ASCII fallback and RFC 5987). */
function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
