import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { MAX_ID } from '../platform/id-schemas';
import { BODY_ERRORS, envelope, errorReplies, sendRefusal } from '../platform/reply-schemas';
import type { InferenceService } from './inference-service';

const params = {
  type: 'object',
  additionalProperties: false,
  required: ['userId', 'applicationId'],
  properties: {
    userId: { type: 'integer', minimum: 1, maximum: MAX_ID, description: "The caller's user id" },
    applicationId: { type: 'integer', minimum: 1, maximum: MAX_ID },
  },
} as const;

const body = {
  type: 'object',
  additionalProperties: false,
  // features and data_url are required, but refused by the service in the problem file's words
  // ('Please select a feature', 'Please upload a csv file') rather than by the schema.
  properties: {
    features: {
      type: 'array',
      maxItems: 1000,
      items: { type: 'string', maxLength: 500 },
      description:
        "The CSV's columns to give the model (carriage returns and surrounding spaces are stripped): " +
        'exactly the features the model was trained on',
    },
    data_url: {
      type: 'string',
      maxLength: 4096,
      description:
        'The CSV: samples/<file>.csv, /api/download/<filename>/<user>/<email> (an upload of yours) or an ' +
        'http(s) URL the server fetches',
    },
    output_id: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_ID,
      description:
        "The output whose model answers (default: the application's latest Completed one with a model)",
    },
  },
} as const;

const valueList = { type: 'array', items: { type: ['number', 'null'] } } as const;

const inferenceData = {
  type: 'object',
  required: ['actual', 'predicted', 'output_id', 'rows'],
  properties: {
    actual: {
      ...valueList,
      description: "The target column's values, one per predicted row (null: an empty cell)",
    },
    predicted: { ...valueList, description: "The model's predictions, paired with `actual`" },
    output_id: { type: 'integer', description: 'The output whose trained model answered' },
    rows: { type: 'integer', description: "The CSV's data rows (header not counted)" },
  },
} as const;

/**
 * `POST /{problem}/inference/{userId}/{applicationId}` for every problem whose file has an
 * `inference` section (spec workspace.md section 7): the caller's application's trained model applied
 * to a CSV. Another user's id or application is a 404; missing features are refused by name.
 */
export const inferenceRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { inference: InferenceService };
}> = async (app, { inference }) => {
  for (const problem of inference.problems()) {
    app.post(
      `/${problem.id}/inference/:userId/:applicationId`,
      {
        onRequest: app.requireUser,
        config: { documentedRequired: ['features', 'data_url'] },
        schema: {
          tags: ['inference'],
          summary: `${problem.name}: actual and predicted values of a trained model on a CSV`,
          params,
          body,
          response: {
            200: envelope(inferenceData),
            ...errorReplies(...BODY_ERRORS, 401, 404, 429, 502),
          },
        },
      },
      async (request, reply) => {
        const outcome = await inference.infer(
          request.currentUser!,
          problem.id,
          request.params.userId,
          request.params.applicationId,
          request.body,
        );
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply.code(200).send({ success: true, data: outcome.data });
      },
    );
  }
};
