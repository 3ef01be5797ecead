import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyRequest } from 'fastify';
import { MAX_ID } from '../platform/id-schemas';
import { isMalformedMultipart, MALFORMED_MULTIPART } from '../platform/multipart-errors';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { errorBody, errorReplies, sendRefusal } from '../platform/reply-schemas';
import type { ImageSource, PredictService } from './predict-service';

/** Predictions one account may ask for in ten minutes (each runs a model in a worker process). */
export const predictRules = (userId: number): RateRule[] => [
  { key: `brain-tumor-predict:user:${userId}`, max: 120, windowMs: 10 * 60 * 1000 },
];

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['userId'],
  properties: {
    userId: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's user id" },
  },
} as const;

const querystring = {
  type: 'object',
  additionalProperties: false,
  required: ['application_id', 'model_name'],
  properties: {
    application_id: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's application" },
    model_name: {
      type: 'string',
      maxLength: 100,
      description:
        "densenet121: the application's latest Completed classical training output; qmodel: its latest quantum one",
    },
  },
} as const;

const probabilities = {
  type: 'object',
  additionalProperties: { type: 'number' },
  description: "The model's probability of each class (meningioma, glioma, pituitary; they sum to 1)",
} as const;

const predictionReply = {
  type: 'object',
  required: ['success', 'prediction', 'probabilities', 'message', 'output_id', 'model'],
  properties: {
    success: { type: 'boolean' },
    prediction: { type: 'string', description: 'The most probable class: meningioma, glioma or pituitary' },
    probabilities,
    message: { type: 'string' },
    output_id: { type: 'integer', description: 'The new output (result type Prediction) that keeps it' },
    model: {
      type: 'object',
      required: ['output_id', 'model_name'],
      properties: {
        output_id: { type: 'integer', description: 'The training output whose model answered' },
        model_name: { type: 'string', description: 'That model (densenet121, FCN, QCNN, ...)' },
      },
    },
  },
} as const;

const URL_FIELD = 'image_url';

/**
 * `POST /brain-tumor-classification/predict/{userId}?application_id&model_name` (spec workspace.md
 * section 7, issue #13): one MRI image, as the multipart field `file` or an `image_url` (a JSON,
 * form or multipart field) the server fetches, classified by the application's trained model.
 * Another user's id or application is a 404; the image's refusals are the problem file's messages.
 */
export const predictRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { predict: PredictService; limiter: RateLimiter };
}> = async (app, { predict, limiter }) => {
  // Multipart in this scope only. One byte over the limit is how a too large file is seen.
  await app.register(multipart, {
    limits: { fileSize: predict.maxBytes + 1, files: 1, fields: 4, fieldSize: 4096, parts: 5 },
  });
  app.addHook('onClose', () => predict.close());

  app.post(
    '/brain-tumor-classification/predict/:userId',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['brain-tumor'],
        summary:
          'Brain tumor: the class of one MRI image (multipart field `file`, or `image_url`) by the ' +
          "application's trained model; NIfTI, DICOM (modality MR), PNG or JPEG by content, at most 5 MB",
        consumes: ['multipart/form-data', 'application/json', 'application/x-www-form-urlencoded'],
        params,
        querystring,
        response: { 200: predictionReply, ...errorReplies(400, 401, 404, 409, 413, 415, 429, 502) },
      },
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const wait = await limiter.attempt(predictRules(caller.id));
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('predictions', wait)));
      }
      const scratch = await predict.scratchDir();
      try {
        const image = await readImage(request, scratch, predict.messages());
        if ('refusal' in image) return sendRefusal(reply, image.refusal);
        const outcome = await predict.predict(
          caller,
          {
            userId: request.params.userId,
            applicationId: request.query.application_id,
            modelName: request.query.model_name,
            image,
          },
          scratch,
        );
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply.code(200).send({ success: true, ...outcome.data });
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  );

  type Refusal = { status: 400 | 413; detail: string; errors: { field: string; message: string }[] };
  const refusal = (status: 400 | 413, field: string, message: string): { refusal: Refusal } => ({
    refusal: { status, detail: message, errors: [{ field, message }] },
  });

  /** The image the request carries: a multipart file saved into `scratch`, or an http(s) URL. */
  async function readImage(
    request: FastifyRequest,
    scratch: string,
    messages: Record<string, string>,
  ): Promise<ImageSource | { refusal: Refusal }> {
    const sizeMessage = messages.size ?? 'File too large.';
    if (!request.isMultipart()) {
      const body = request.body as Record<string, unknown> | undefined;
      const url = typeof body?.[URL_FIELD] === 'string' ? body[URL_FIELD].trim() : '';
      return url ? { kind: 'url', url } : { kind: 'none' };
    }
    let image: ImageSource = { kind: 'none' };
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file' || image.kind !== 'none') {
            part.file.resume();
            continue;
          }
          const saved = await saveFile(part, scratch);
          if (part.file.truncated) return refusal(413, '/file', sizeMessage);
          image = { kind: 'file', path: saved, name: part.filename || 'image' };
        } else if (part.fieldname === URL_FIELD && typeof part.value === 'string' && image.kind === 'none') {
          const url = part.value.trim();
          if (url) image = { kind: 'url', url };
        }
      }
    } catch (error) {
      if (error instanceof app.multipartErrors.RequestFileTooLargeError) {
        return refusal(413, '/file', sizeMessage);
      }
      if (isMalformedMultipart(error)) return refusal(400, '/file', MALFORMED_MULTIPART);
      throw error;
    }
    return image;
  }
};

async function saveFile(part: MultipartFile, scratch: string): Promise<string> {
  const target = path.join(scratch, 'upload');
  await pipeline(part.file, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  return target;
}
