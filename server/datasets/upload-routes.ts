import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { isMalformedMultipart, MALFORMED_MULTIPART } from '../platform/multipart-errors';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { wordedValidationErrors } from '../platform/error-handler';
import {
  acknowledgement,
  envelope,
  errorBody,
  errorReplies,
  wordedErrorBody,
} from '../platform/reply-schemas';
import { CSV_MESSAGES } from './csv-inspection';
import { DatasetRefusal } from './dataset-refusal';
import { DATASET_NAME_PATTERN, type DatasetStore } from './dataset-store';
import type { DatasetRecord } from './datasets-repository';
import { pathNamesCaller } from './datasets';
import type { DatasetResolver } from './dataset-resolver';
import { MAT_MESSAGES, type MatInspector } from './mat-inspection';
import { matPreviewRoutes } from './mat-preview-routes';
import { isMatUploadName, MAT_UPLOAD_MAX_BYTES } from './mat-upload';

/** Dataset uploads one account may make in an hour. */
export const datasetUploadRules = (userId: number): RateRule[] => [
  { key: `dataset-upload:user:${userId}`, max: 60, windowMs: 60 * 60 * 1000 },
];

/** The spec's prefix of every upload refusal (workspace.md section 8). */
export const UPLOAD_ERROR_PREFIX = 'Error uploading file.';
const FIELD_MESSAGE = 'Send one CSV file as multipart/form-data, in the field "file".';
/** Image Data rows read with an upload: the preview the Train tab asks for next is then cached. */
const UPLOAD_PREVIEW_ROWS = 30;

const uploadParams = {
  type: 'object',
  required: ['userName', 'userEmail'],
  properties: {
    userName: { type: 'string', minLength: 1, maxLength: 100, description: "The caller's name or id" },
    userEmail: { type: 'string', minLength: 1, maxLength: 254, description: "The caller's e-mail address" },
  },
} as const;

const uploadReply = {
  type: 'object',
  required: ['success', 'filename', 'url', 'rows', 'dropped_rows', 'columns', 'size_bytes'],
  properties: {
    success: { type: 'boolean' },
    filename: { type: 'string', description: 'The stored name (random; .csv, .mat or .zip)' },
    url: {
      type: 'string',
      description:
        'Where the owner downloads it and what a job names: /api/download/{filename}/{userName}/{userEmail}',
    },
    rows: {
      type: 'integer',
      description: 'Kept data rows (the header, blank lines and dropped rows not counted)',
    },
    dropped_rows: {
      type: 'integer',
      description: "Data rows dropped because their number of values differs from the header's",
    },
    columns: { type: 'array', items: { type: 'string' } },
    size_bytes: { type: 'integer' },
    count: { type: 'integer', description: 'A .mat dataset: its slices (also in rows)' },
    class_counts: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'A .mat dataset: slices per class (meningioma, glioma, pituitary)',
    },
    patients: { type: 'integer', description: 'A .mat dataset: distinct patient ids' },
    image_size: {
      type: 'array',
      items: { type: 'integer' },
      description: 'A .mat dataset: [height, width] of its slices',
    },
    format: { type: 'string', enum: ['mat-v7.3', 'mat-v5', 'zip'], description: 'A .mat dataset' },
  },
} as const;

const datasetSchema = {
  type: 'object',
  required: ['filename', 'original_name', 'url', 'rows', 'columns', 'size_bytes', 'sha256', 'created_at'],
  properties: {
    filename: { type: 'string' },
    original_name: { type: 'string', description: 'The name the file had when uploaded' },
    url: { type: 'string' },
    rows: { type: 'integer' },
    columns: { type: 'array', items: { type: 'string' } },
    size_bytes: { type: 'integer' },
    sha256: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const filenameParams = {
  type: 'object',
  required: ['filename'],
  properties: { filename: { type: 'string', pattern: DATASET_NAME_PATTERN } },
} as const;

export const downloadUrl = (filename: string, user: string, email: string): string =>
  `/api/download/${encodeURIComponent(filename)}/${encodeURIComponent(user)}/${encodeURIComponent(email)}`;

/**
 * POST /upload/{userName}/{userEmail} (a CSV dataset, or a brain tumor .mat / .zip dataset by its name,
 * signed-in owner only), GET /datasets (the caller's uploads and storage), DELETE /datasets/{filename}
 * and GET /datasets/mat-preview (mat-preview-routes.ts). The file is served by
 * GET /download/{filename}/{user}/{email} (server/samples/samples-routes.ts).
 */
export const uploadRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: {
    store: DatasetStore;
    limiter: RateLimiter;
    mat: { inspector: MatInspector; resolver: Pick<DatasetResolver, 'resolveStored'> };
  };
}> = async (app, { store, limiter, mat }) => {
  // Multipart in this scope only. One byte over the limit reaches the content check, which names it.
  const largest = Math.max(store.limits.maxBytes, MAT_UPLOAD_MAX_BYTES);
  await app.register(multipart, {
    limits: { fileSize: largest + 1, files: 1, fields: 4, fieldSize: 1024, parts: 5 },
  });
  await app.register(matPreviewRoutes, mat);

  // The spec's own sentences for a .mat file's content stand alone; the rest follow the upload prefix.
  const specWords = (detail: string) =>
    detail === MAT_MESSAGES.notMat || detail.startsWith(MAT_MESSAGES.parse(''));
  const wording = (detail: string) => (specWords(detail) ? detail : `${UPLOAD_ERROR_PREFIX} ${detail}`);
  const refuse = (status: 400 | 413, detail: string) => ({
    status,
    body: wordedErrorBody(wording(detail), detail),
  });

  app.post(
    '/upload/:userName/:userEmail',
    {
      schema: {
        tags: ['datasets'],
        summary:
          "Upload a dataset: multipart field `file`, UTF-8 CSV with a header row, checked by content (the path names the caller's name or id and e-mail)",
        consumes: ['multipart/form-data'],
        params: uploadParams,
        response: { 201: uploadReply, ...errorReplies(400, 413, 401, 404, 429) },
      },
      onRequest: app.requireUser,
      errorHandler: wordedValidationErrors(wording),
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const { userName, userEmail } = request.params;
      if (!pathNamesCaller(caller, userName, userEmail)) return reply.code(404).send(errorBody('Not found'));
      const wait = await limiter.attempt(datasetUploadRules(caller.id));
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('uploads', wait)));
      }
      if (!request.isMultipart()) {
        const r = refuse(400, FIELD_MESSAGE);
        return reply.code(r.status).send(r.body);
      }
      try {
        await store.checkRoom(caller.id);
        const part = await request.file();
        if (!part || part.fieldname !== 'file') {
          part?.file.resume();
          throw new DatasetRefusal(FIELD_MESSAGE);
        }
        if (isMatUploadName(part.filename)) {
          const { record, contents } = await store.saveMat(
            caller.id,
            part.filename,
            part.file,
            async (file) => {
              const found = await mat.inspector.inspect(file, 0, UPLOAD_PREVIEW_ROWS);
              return { rows: found.count, columns: [], found };
            },
          );
          const { count, class_counts, patients, image_size, format } = contents.found;
          return reply.code(201).send({
            success: true,
            filename: record.filename,
            url: downloadUrl(record.filename, userName, userEmail),
            rows: record.row_count,
            dropped_rows: 0,
            columns: record.columns,
            size_bytes: record.size_bytes,
            ...{ count, class_counts, patients, image_size, format },
          });
        }
        const { record, droppedRows } = await store.save(caller.id, part.filename, part.file);
        return reply.code(201).send({
          success: true,
          filename: record.filename,
          url: downloadUrl(record.filename, userName, userEmail),
          rows: record.row_count,
          dropped_rows: droppedRows,
          columns: record.columns,
          size_bytes: record.size_bytes,
        });
      } catch (error) {
        if (error instanceof DatasetRefusal) {
          const r = refuse(error.status === 413 ? 413 : 400, error.message);
          return reply.code(r.status).send(r.body);
        }
        if (error instanceof app.multipartErrors.RequestFileTooLargeError) {
          const r = refuse(413, CSV_MESSAGES.tooLarge(store.limits.maxBytes));
          return reply.code(r.status).send(r.body);
        }
        if (
          error instanceof app.multipartErrors.FilesLimitError ||
          error instanceof app.multipartErrors.PartsLimitError ||
          error instanceof app.multipartErrors.FieldsLimitError ||
          error instanceof app.multipartErrors.InvalidMultipartContentTypeError
        ) {
          const r = refuse(400, FIELD_MESSAGE);
          return reply.code(r.status).send(r.body);
        }
        if (isMalformedMultipart(error)) {
          const r = refuse(400, MALFORMED_MULTIPART);
          return reply.code(r.status).send(r.body);
        }
        throw error;
      }
    },
  );

  const serialise = (record: DatasetRecord, user: { id: number; email: string }) => ({
    filename: record.filename,
    original_name: record.original_name,
    url: downloadUrl(record.filename, String(user.id), user.email),
    rows: record.row_count,
    columns: record.columns,
    size_bytes: record.size_bytes,
    sha256: record.sha256,
    created_at: record.created_at,
  });

  app.get(
    '/datasets',
    {
      schema: {
        tags: ['datasets'],
        summary: "The caller's uploaded datasets (newest first) and how much of their storage they use",
        response: {
          200: envelope({
            type: 'object',
            required: ['datasets', 'used_bytes', 'quota_bytes'],
            properties: {
              datasets: { type: 'array', items: datasetSchema },
              used_bytes: { type: 'integer' },
              quota_bytes: { type: 'integer', description: 'DATASET_QUOTA_BYTES' },
            },
          }),
          ...errorReplies(401),
        },
      },
      onRequest: app.requireUser,
    },
    async (request) => {
      const caller = request.currentUser!;
      const records = await store.repository.listByOwner(caller.id);
      return {
        success: true,
        data: {
          datasets: records.map((r) => serialise(r, caller)),
          used_bytes: records.reduce((sum, r) => sum + r.size_bytes, 0),
          quota_bytes: store.limits.quotaBytes,
        },
      };
    },
  );

  app.delete(
    '/datasets/:filename',
    {
      schema: {
        tags: ['datasets'],
        summary: "Delete one of the caller's uploaded datasets (its file and row), freeing its storage",
        params: filenameParams,
        response: { 200: acknowledgement, ...errorReplies(400, 401, 404) },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const removed = await store.remove(request.currentUser!.id, request.params.filename);
      if (!removed) return reply.code(404).send(errorBody('Not found'));
      return { success: true, message: 'The dataset was deleted.' };
    },
  );
};
