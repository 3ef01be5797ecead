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
import { apiNameOf } from '../outputs/outputs-service';
import { maxImageBytes, type ImageSource, type PredictProblem, type PredictService } from './predict-service';

/** Predictions one account may ask for in ten minutes, per problem (each runs a model in a worker process). */
export const predictRules = (userId: number, problemId: string): RateRule[] => [
  { key: `${problemId}-predict:user:${userId}`, max: 120, windowMs: 10 * 60 * 1000 },
];

/** The predict path of a problem: /{api name of its execute-job path}/predict/{userId}. */
export const predictPathOf = (problem: PredictProblem): string => `/${apiNameOf(problem)}/predict/:userId`;

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['userId'],
  properties: {
    userId: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's user id" },
  },
} as const;

/** The query of one problem's predict route; model_name's text lists its file's predict.modelKinds. */
const querystringOf = (problem: PredictProblem) =>
  ({
    type: 'object',
    additionalProperties: false,
    // model_name is required too (documented so: config.documentedRequiredQuery), but refused by the service in
    // the problem file's words (modelRequired).
    required: ['application_id'],
    properties: {
      application_id: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_ID,
        description: "The caller's application",
      },
      model_name: {
        type: 'string',
        maxLength: 100,
        description: Object.entries(problem.predict.modelKinds)
          .map(([model, kind]) => `${model}: the application's latest Completed ${kind} training output`)
          .join('; '),
      },
    },
  }) as const;

const probabilities = {
  type: 'object',
  additionalProperties: { type: 'number' },
  description: "The model's probability of each class the problem's model predicts; they sum to 1",
} as const;

const predictionReply = {
  type: 'object',
  required: ['success', 'prediction', 'probabilities', 'message', 'output_id', 'model'],
  properties: {
    success: { type: 'boolean' },
    prediction: {
      type: 'string',
      description: 'The most probable class',
    },
    probabilities,
    message: { type: 'string' },
    output_id: { type: 'integer', description: 'The new output (result type Prediction) that keeps it' },
    model: {
      type: 'object',
      required: ['output_id', 'model_name'],
      properties: {
        output_id: { type: 'integer', description: 'The training output whose model answered' },
        model_name: { type: 'string', description: "That model, as the problem's form names it" },
      },
    },
  },
} as const;

const URL_FIELD = 'image_url';

/**
 * `POST /{api}/predict/{userId}?application_id&model_name` for every problem whose file has a
 * predict block (brain tumor: /brain-tumor-classification/predict/{userId}, spec workspace.md
 * section 7): one image, as the multipart field `file` or an `image_url` (a JSON, form or
 * multipart field) the server fetches, classified by the application's trained model. Another
 * user's id or application is a 404; the image's refusals are the problem file's messages.
 */
export const predictRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { predict: PredictService; limiter: RateLimiter };
}> = async (app, { predict, limiter }) => {
  app.addHook('onClose', () => predict.close());
  for (const problem of predict.problems()) {
    // Multipart in each route's own scope: one byte over the problem's limit is how a too large file is seen.
    await app.register(async (scope) => {
      await scope.register(multipart, {
        limits: { fileSize: maxImageBytes(problem) + 1, files: 1, fields: 4, fieldSize: 4096, parts: 5 },
      });
      registerPredictRoute(scope, problem);
    });
  }

  function registerPredictRoute(scope: typeof app, problem: PredictProblem) {
    const extensions = problem.predict.image.extensions.join(', ');
    const megabytes = Math.round((maxImageBytes(problem) / (1024 * 1024)) * 10) / 10;
    scope.post(
      predictPathOf(problem),
      {
        onRequest: app.requireUser,
        config: { documentedRequiredQuery: ['model_name'] },
        schema: {
          tags: [problem.id],
          summary:
            `${problem.name}: the class of one image (multipart field \`file\`, or \`image_url\`) by the ` +
            `application's trained model; ${extensions ? `${extensions} by content, ` : ''}at most ${megabytes} MB`,
          consumes: ['multipart/form-data', 'application/json', 'application/x-www-form-urlencoded'],
          params,
          querystring: querystringOf(problem),
          response: { 200: predictionReply, ...errorReplies(400, 401, 404, 409, 413, 415, 429, 502) },
        },
      },
      async (request, reply) => {
        const caller = request.currentUser!;
        const wait = await limiter.attempt(predictRules(caller.id, problem.id));
        if (wait > 0) {
          return reply
            .code(429)
            .header('retry-after', String(wait))
            .send(errorBody(tooManyText('predictions', wait)));
        }
        const scratch = await predict.scratchDir();
        try {
          const image = await readImage(scope, request, scratch, predict.messages(problem.id));
          if ('refusal' in image) return sendRefusal(reply, image.refusal);
          const outcome = await predict.predict(
            caller,
            {
              problemId: problem.id,
              userId: request.params.userId,
              applicationId: request.query.application_id,
              modelName: request.query.model_name ?? '',
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
  }

  type Refusal = { status: 400 | 413; detail: string; errors: { field: string; message: string }[] };
  const refusal = (status: 400 | 413, field: string, message: string): { refusal: Refusal } => ({
    refusal: { status, detail: message, errors: [{ field, message }] },
  });

  /** The image the request carries: a multipart file saved into `scratch`, or an http(s) URL. */
  async function readImage(
    scope: typeof app,
    request: FastifyRequest,
    scratch: string,
    messages: { size: string },
  ): Promise<ImageSource | { refusal: Refusal }> {
    const sizeMessage = messages.size;
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
      // The scope that registered multipart has its errors.
      if (error instanceof scope.multipartErrors.RequestFileTooLargeError) {
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
