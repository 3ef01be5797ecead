// GET /datasets/mat-preview: the brain tumor Train tab's tables (Image Data, Tumor Border, Tumor Mask)
// and a slice's thumbnail, for the caller's uploaded .mat dataset or the shipped sample, read by the
// worker (mat-inspection.ts) and cached per file contents and slice.

import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { envelope, errorBody, errorReplies } from '../platform/reply-schemas';
import { DatasetRefusal } from './dataset-refusal';
import type { DatasetResolver } from './dataset-resolver';
import type { MatInspector } from './mat-inspection';

/** Image Data rows a preview may ask for. */
export const MAX_PREVIEW_ROWS = 200;

/** Whether a resolved dataset file is a brain tumor dataset (a CSV is not). */
export const isMatDatasetPath = (file: string): boolean => /\.(mat|zip)$/i.test(file);

const previewQuery = {
  type: 'object',
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description:
        "The dataset as app_data names it: a shipped .mat sample or the upload's /api/download/... URL",
    },
    index: { type: 'integer', default: 1, description: 'The slice to show, 1-based' },
    rows: {
      type: 'integer',
      default: 30,
      description: `Image Data rows from the first slice (1 to ${MAX_PREVIEW_ROWS})`,
    },
  },
} as const;

const previewSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['count', 'class_counts', 'patients', 'image_size', 'format', 'image_data', 'slice'],
  description:
    "The worker's mat-inspect result: slice count, class counts, patients, image size, format, the first Image Data rows and the slice (thumbnail_png base64, tumor_border points, tumor_mask area, bbox and run-length rows)",
  properties: {
    count: { type: 'integer' },
    class_counts: { type: 'object', additionalProperties: { type: 'integer' } },
    patients: { type: 'integer' },
    image_size: { type: 'array', items: { type: 'integer' } },
    format: { type: 'string', enum: ['mat-v7.3', 'mat-v5', 'zip'] },
    image_data: { type: 'array', items: { type: 'object', additionalProperties: true } },
    slice: { type: 'object', additionalProperties: true },
  },
} as const;

export const matPreviewRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { inspector: MatInspector; resolver: Pick<DatasetResolver, 'resolveStored'> };
}> = async (app, { inspector, resolver }) => {
  app.get(
    '/datasets/mat-preview',
    {
      schema: {
        tags: ['datasets'],
        summary:
          "A .mat dataset's Image Data rows and one slice with its tumor border and mask (the caller's upload or a shipped sample)",
        querystring: previewQuery,
        response: { 200: envelope(previewSchema), ...errorReplies(400, 401, 404) },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const { url, index, rows } = request.query;
      const refuse = (field: string, message: string) =>
        reply.code(400).send(errorBody(message, [{ field, message }]));
      if (!Number.isInteger(rows) || rows < 1 || rows > MAX_PREVIEW_ROWS) {
        return refuse('/rows', `rows must be between 1 and ${MAX_PREVIEW_ROWS}`);
      }
      try {
        const dataset = await resolver.resolveStored(request.currentUser!, url);
        if (!isMatDatasetPath(dataset.path)) {
          return refuse('/url', 'The dataset is not a .mat file (or a .zip of .mat files).');
        }
        if (!Number.isInteger(index) || index < 1 || index > dataset.rowCount) {
          return refuse('/index', `index must be between 1 and ${dataset.rowCount}`);
        }
        const data = await inspector.inspect(dataset, index - 1, rows);
        return reply.code(200).header('cache-control', 'private, no-cache').send({ success: true, data });
      } catch (error) {
        if (!(error instanceof DatasetRefusal)) throw error;
        if (error.status === 404) return reply.code(404).send(errorBody(error.message));
        return refuse('/url', error.message);
      }
    },
  );
};
