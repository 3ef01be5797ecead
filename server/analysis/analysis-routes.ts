import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { idParam } from '../platform/id-schemas';
import {
  anyObject,
  BODY_ERRORS,
  envelope,
  errorReplies,
  nullableNumber,
  numberMap,
  sendRefusal,
  stringList,
} from '../platform/reply-schemas';
import type { AnalysisService } from './analysis-service';
import { lossCurvesSchema, lossSpreadSchema } from './loss-spread';

const text = { type: 'string', maxLength: 200 } as const;

const message = {
  type: 'object',
  additionalProperties: false,
  required: ['role', 'content'],
  properties: {
    role: { type: 'string' },
    content: { type: 'string', description: 'The report, in Markdown' },
  },
} as const;

const proseFields = {
  message,
  created_at: { type: 'string', format: 'date-time' },
  source: {
    type: 'string',
    enum: ['engine', 'model', 'vision-model'],
    description:
      "engine: the rule engine's report from the output's facts; model: the language model's (LLM_BASE_URL), every number checked against the facts; vision-model: a description of an uploaded image",
  },
  note: {
    type: ['string', 'null'],
    description: "Why the engine's text is shown although a model is configured",
  },
} as const;

const reportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'conclusion', 'insights', 'recommendations', 'caveats', 'definitions'],
  properties: {
    title: { type: 'string' },
    conclusion: stringList,
    insights: stringList,
    recommendations: stringList,
    caveats: stringList,
    definitions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['term', 'text'],
        properties: { term: { type: 'string' }, text: { type: 'string' } },
      },
    },
  },
} as const;

/**
 * The spec's analysis calls (workspace.md sections 5 and 7): analyze one output, compare two, interpret a
 * chart. Signed in; an output is readable by its owner (or an admin), anyone else gets 404.
 */
export const analysisRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { analysis: AnalysisService };
}> = async (app, { analysis }) => {
  app.post(
    '/output-analyzer/output-analyze',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['analysis'],
        summary:
          'A written report of a Completed output from its facts (convergence, metrics against the baseline, confusions, quantum backend, data), technical or not; no body',
        querystring: {
          type: 'object',
          properties: {
            output_id: text,
            application_name: text,
            interpreted_type_is_technical: { ...text, description: 'true or false' },
          },
        },
        response: {
          200: envelope({
            type: 'object',
            additionalProperties: false,
            required: ['output_id', 'message', 'created_at', 'register', 'source', 'note', 'report'],
            properties: {
              output_id: { type: 'integer' },
              register: { type: 'string', enum: ['technical', 'non_technical'] },
              ...proseFields,
              report: reportSchema,
            },
          }),
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await analysis.analyze(request.currentUser!, request.query ?? {});
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.get(
    '/application-outputs/compare',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['analysis'],
        summary:
          'Two Completed outputs of one problem side by side: the written interpretation, the configurations (differences first), metrics with each baseline and the better run, the training curves',
        querystring: {
          type: 'object',
          properties: {
            output_id1: text,
            output_id2: text,
            interpreted_type_is_technical: { ...text, description: 'true (default) or false' },
          },
        },
        response: {
          200: envelope({
            type: 'object',
            additionalProperties: false,
            required: [
              'interpreted',
              'configurations',
              'metrics',
              'curves',
              'spread',
              'outputs',
              'message',
              'created_at',
              'register',
              'source',
              'note',
            ],
            properties: {
              interpreted: {
                type: 'object',
                additionalProperties: false,
                required: ['conclusion', 'insights', 'recommendations', 'definition'],
                properties: {
                  conclusion: { type: 'string' },
                  insights: stringList,
                  recommendations: stringList,
                  definition: { type: 'string' },
                },
              },
              configurations: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['key', 'a', 'b', 'differs'],
                  properties: { key: { type: 'string' }, a: {}, b: {}, differs: { type: 'boolean' } },
                },
              },
              metrics: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['name', 'label', 'a', 'b', 'baseline_a', 'baseline_b', 'better'],
                  properties: {
                    name: { type: 'string' },
                    label: { type: 'string' },
                    a: nullableNumber,
                    b: nullableNumber,
                    baseline_a: nullableNumber,
                    baseline_b: nullableNumber,
                    better: { type: ['string', 'null'], enum: ['a', 'b', 'tie', null] },
                  },
                },
              },
              curves: {
                type: 'object',
                additionalProperties: false,
                required: ['a', 'b'],
                properties: {
                  a: { ...anyObject, type: ['object', 'null'] },
                  b: { ...anyObject, type: ['object', 'null'] },
                },
              },
              spread: {
                type: 'object',
                additionalProperties: false,
                required: ['a', 'b'],
                properties: { a: lossSpreadSchema, b: lossSpreadSchema },
              },
              outputs: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'name', 'model'],
                  properties: {
                    id: { type: 'integer' },
                    name: { type: 'string' },
                    model: { type: ['string', 'null'] },
                  },
                },
              },
              register: { type: 'string', enum: ['technical', 'non_technical'] },
              ...proseFields,
            },
          }),
          ...errorReplies(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await analysis.compare(request.currentUser!, request.query ?? {});
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.get(
    '/application-outputs/:applicationId/runs',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['analysis'],
        summary:
          "An application's outputs as a run table: each run's settings, metrics, baseline and per-epoch losses; the metric columns and the settings that differ first (the id is the APPLICATION's)",
        params: idParam('applicationId'),
        response: {
          200: envelope({
            type: 'object',
            additionalProperties: false,
            required: ['runs', 'metrics', 'settings'],
            properties: {
              runs: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: [
                    'id',
                    'name',
                    'status',
                    'created_at',
                    'execution_time',
                    'model',
                    'metrics',
                    'baseline',
                    'settings',
                    'history',
                    'spread',
                  ],
                  properties: {
                    id: { type: 'integer' },
                    name: { type: 'string' },
                    status: { type: 'string' },
                    created_at: { type: 'string', format: 'date-time' },
                    execution_time: nullableNumber,
                    model: { type: ['string', 'null'] },
                    metrics: numberMap,
                    baseline: numberMap,
                    settings: {
                      type: 'object',
                      additionalProperties: {
                        anyOf: [
                          { type: 'string' },
                          { type: 'number' },
                          { type: 'boolean' },
                          { type: 'null' },
                        ],
                      },
                    },
                    history: { anyOf: [lossCurvesSchema, { type: 'null' }] },
                    spread: lossSpreadSchema,
                  },
                },
              },
              metrics: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['name', 'label', 'better'],
                  properties: {
                    name: { type: 'string' },
                    label: { type: 'string' },
                    better: { anyOf: [{ type: 'string', enum: ['higher', 'lower'] }, { type: 'null' }] },
                  },
                },
              },
              settings: stringList,
            },
          }),
          ...errorReplies(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await analysis.runs(request.currentUser!, request.params.applicationId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.post(
    '/graph-analyzer/graph-analyze',
    {
      onRequest: app.requireUser,
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        tags: ['analysis'],
        summary:
          "Interprets a chart: the product's own charts (output_id and chart) from their data, an uploaded image only with a vision language model (LLM_BASE_URL)",
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['image_base64', 'interpreted_type_is_technical'],
          properties: {
            image_base64: {
              type: 'array',
              maxItems: 8,
              items: { type: 'string', maxLength: 8 * 1024 * 1024 },
            },
            interpreted_type_is_technical: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
            prompt_message: {
              type: 'string',
              maxLength: 4000,
              description: 'Empty: the brain tumor classification analysis prompt',
            },
            application_type: { type: 'string', maxLength: 200 },
            output_id: {
              type: 'integer',
              minimum: 1,
              maximum: 2147483647,
              description: 'The output the chart belongs to',
            },
            chart: {
              type: 'string',
              maxLength: 200,
              description:
                "Which chart: 'Accuracy vs Validation Accuracy', 'Loss over Epochs' or 'Confusion Matrix of Train data'",
            },
          },
        },
        response: {
          200: envelope({
            type: 'object',
            additionalProperties: false,
            required: ['message', 'created_at', 'source', 'note', 'prompt', 'chart'],
            properties: { ...proseFields, prompt: { type: 'string' }, chart: { type: ['string', 'null'] } },
          }),
          ...errorReplies(...BODY_ERRORS, 401, 404, 502),
        },
      },
    },
    async (request, reply) => {
      const outcome = await analysis.graph(request.currentUser!, request.body);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );
};
