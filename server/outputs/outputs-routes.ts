import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { Registry } from '../../src/engine';
import { outputSummarySchema, userIdSchema } from '../applications/application-schemas';
import { idParam } from '../platform/id-schemas';
import { eventStreamSchema, streamJobEvents } from '../jobs/event-stream';
import type { JobsService } from '../jobs/jobs-service';
import { RUN_PHASES } from './output-detail';
import {
  acknowledgement,
  acknowledgementWith,
  anyObject,
  BODY_ERRORS,
  envelope,
  errorBody,
  errorReplies,
  isoOrNull,
  nullableObject,
  numberMap,
  sendRefusal,
  wordedErrorBody,
} from '../platform/reply-schemas';
import { wordedValidationErrors } from '../platform/error-handler';
import {
  APPLICATION_RUNNING,
  apiNameOf,
  EXECUTE_FAILED,
  OUTPUT_DELETED,
  pathParamsOf,
  queryKeysOf,
  STOP_REQUESTED,
  type OutputsService,
} from './outputs-service';

// The wire shapes: OutputDetail and the record.

const outputLogSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['level', 'message', 'at'],
  properties: { level: { type: 'string' }, message: { type: 'string' }, at: { type: 'string' } },
} as const;

const chartSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'title', 'label', 'series', 'categories'],
  description: "The worker protocol's chart (worker-protocol.schema.json chartSpec)",
  properties: {
    type: { type: 'string', enum: ['line', 'bar', 'heatmap', 'confusion_matrix'] },
    title: { type: 'string' },
    label: { type: 'string' },
    series: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'data'],
        properties: { name: { type: 'string' }, data: { type: 'array', items: {} } },
      },
    },
    categories: { type: 'array', items: { type: ['string', 'number'] } },
  },
} as const;

const outputDetailSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'name',
    'status',
    'created_at',
    'started_at',
    'completed_at',
    'application_id',
    'problem_id',
    'execution_time',
    'trained_model_type',
    'trained_model_path',
    'app_data',
    'simplified_app_data',
    'output_logs',
    'progress',
    'metrics',
    'baseline',
    'charts',
    'error',
    'dataset',
    'run_record',
    'quantum_backend',
    'output_data',
  ],
  properties: {
    id: { type: 'integer' },
    name: outputSummarySchema.properties.name,
    status: {
      type: 'string',
      description: "queued, running, Completed, Failed or Manual Stop (anything not final is 'Ongoing')",
    },
    created_at: { type: 'string', format: 'date-time' },
    started_at: isoOrNull,
    completed_at: isoOrNull,
    application_id: { type: 'integer' },
    problem_id: { type: 'string' },
    execution_time: outputSummarySchema.properties.execution_time,
    trained_model_type: outputSummarySchema.properties.trained_model_type,
    trained_model_path: {
      type: ['string', 'null'],
      description: 'The saved model, relative to DATA_DIR (outputs/{id}/...); null when none',
    },
    app_data: { ...nullableObject, description: "The application's app_data when the run started" },
    simplified_app_data: anyObject,
    output_logs: { type: 'array', items: outputLogSchema },
    progress: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['percent', 'stage'],
      properties: { percent: { type: 'number' }, stage: { type: 'string' } },
    },
    metrics: numberMap,
    baseline: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['name', 'metrics'],
      properties: { name: { type: 'string' }, metrics: numberMap },
    },
    charts: { type: 'array', items: chartSchema },
    error: { type: ['string', 'null'] },
    dataset: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['label', 'synthetic', 'sha256', 'rows', 'rows_used'],
      properties: {
        label: { type: 'string' },
        synthetic: { type: 'boolean' },
        sha256: { type: 'string' },
        rows: { type: 'integer', description: "The dataset file's data rows" },
        rows_used: {
          type: ['integer', 'null'],
          description: 'The rows the run used; null until it reports them',
        },
      },
    },
    run_record: nullableObject,
    quantum_backend: {
      type: ['string', 'null'],
      description:
        "Where the quantum circuits ran, as the worker's result states it (noise model, device, shots, noisy training); null when it states none",
    },
    output_data: {
      type: 'object',
      additionalProperties: true,
      required: ['result_type', 'training_history'],
      description:
        'A prediction adds prediction, probabilities (per class), image {name, kind, ...} and model {output_id, model_name}',
      properties: {
        result_type: { type: 'string', enum: ['Training', 'Prediction'] },
        training_history: {
          type: ['object', 'null'],
          description:
            'Per-epoch series: train_loss and test_loss, plus any the run records (loss, accuracy, val_accuracy, val_loss). Null for a prediction',
          additionalProperties: { type: 'array', items: { type: 'number' } },
        },
      },
    },
  },
} as const;

const recordSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['trained_model_path', 'application_id', 'app_data', 'output_logs', 'simplified_app_data'],
  properties: {
    trained_model_path: outputDetailSchema.properties.trained_model_path,
    application_id: { type: 'integer' },
    app_data: nullableObject,
    output_logs: { type: 'array', items: outputLogSchema },
    simplified_app_data: anyObject,
  },
} as const;

const timelineSchema = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'at', 'reason'],
    properties: {
      status: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      reason: { type: ['string', 'null'] },
      phase: {
        type: ['string', 'null'],
        enum: [...RUN_PHASES, null],
        description: "A quantum run's phase while running (null on status changes)",
      },
    },
  },
} as const;

/**
 * Outputs (spec workspace.md section 7): execute-job for every problem whose file
 * runs through POST /{api}/execute-job/{param} (the financial problems' {userId}; brain tumor's
 * {modelType} with user_id, start_idx and end_idx in the query), stop-job for every problem, and an output's detail,
 * record, status timeline, count, deletion and live stream. Owner only; an admin may read.
 */
export const outputsRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { outputs: OutputsService; jobs: JobsService; registry: Registry };
}> = async (app, { outputs, jobs, registry }) => {
  for (const problem of outputs.executableProblems()) {
    // The route from the problem file's job.request: /{api name}/execute-job/{placeholder}, its query keys.
    const params = pathParamsOf(problem);
    const queryKeys = queryKeysOf(problem);
    app.post(
      `/${apiNameOf(problem)}/execute-job/${params.map((name) => `:${name}`).join('/')}`,
      {
        onRequest: app.requireUser,
        // A request its schema refuses (no body, a missing query) is worded as the spec's execute refusal.
        errorHandler: wordedValidationErrors((detail) => `${EXECUTE_FAILED} ${detail}`),
        schema: {
          tags: ['outputs'],
          summary: `Run a ${problem.name} application: the body${queryKeys.length ? ', path and query' : ''} must be what the engine derives from its saved app_data`,
          params: {
            type: 'object',
            additionalProperties: false,
            required: params,
            properties: Object.fromEntries(
              params.map((name) => [
                name,
                name === 'userId'
                  ? userIdSchema
                  : {
                      type: 'string',
                      minLength: 1,
                      maxLength: 100,
                      description: `job.request.params ${name}`,
                    },
              ]),
            ),
          },
          ...(queryKeys.length > 0 && {
            querystring: {
              type: 'object',
              required: queryKeys,
              properties: Object.fromEntries(
                queryKeys.map((key) => [
                  key,
                  {
                    type: 'string',
                    minLength: 1,
                    maxLength: 20,
                    description: `job.request.query ${key} of problems/${problem.id}.json`,
                  },
                ]),
              ),
            },
          }),
          body: {
            type: 'object',
            additionalProperties: true,
            description: `The job body of workspace.md section 7 (job.bodySchema of problems/${problem.id}.json); id = the application id`,
          },
          response: {
            201: acknowledgementWith({
              type: 'object',
              additionalProperties: false,
              required: ['output_id'],
              properties: { output_id: { type: 'integer' } },
            }),
            ...errorReplies(400, 413, 415, 401, 404),
          },
        },
      },
      async (request, reply) => {
        const outcome = await outputs.execute(request.currentUser!, problem, {
          params: request.params as Record<string, string | number>,
          query: (request.query ?? {}) as Record<string, string | undefined>,
          body: request.body as Record<string, unknown>,
        });
        if (outcome.ok) {
          return reply
            .code(201)
            .send({ success: true, message: APPLICATION_RUNNING, data: { output_id: outcome.outputId } });
        }
        if (outcome.status === 404) return reply.code(404).send(errorBody(outcome.message));
        return reply.code(400).send(wordedErrorBody(outcome.message, outcome.message, outcome.errors));
      },
    );
  }

  for (const problem of registry.problems) {
    app.post(
      `/${apiNameOf(problem)}/stop-job/:outputId`,
      {
        onRequest: app.requireUser,
        schema: {
          tags: ['outputs'],
          summary: `Stop a queued or running ${problem.name} output (recorded as Manual Stop); accepted, not yet done`,
          params: idParam('outputId'),
          response: {
            202: { ...acknowledgement, description: 'Stop requested; the output records Manual Stop soon' },
            ...errorReplies(...BODY_ERRORS, 401, 404),
          },
        },
      },
      async (request, reply) => {
        const outcome = await outputs.stop(request.currentUser!, problem, request.params.outputId);
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply.code(202).send({ success: true, message: STOP_REQUESTED });
      },
    );
  }

  const read = { onRequest: app.requireUser } as const;

  app.get(
    '/application-outputs/:outputId/detail',
    {
      ...read,
      schema: {
        tags: ['outputs'],
        summary: "An output's detail: status, logs, progress, metrics next to the baseline, charts, result",
        params: idParam('outputId'),
        response: { 200: envelope(outputDetailSchema), ...errorReplies(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const outcome = await outputs.detail(request.currentUser!, request.params.outputId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.get(
    '/application-outputs/:outputId/record',
    {
      ...read,
      schema: {
        tags: ['outputs'],
        summary:
          "An output's record: trained model path, application id, app_data, logs, model configurations",
        params: idParam('outputId'),
        response: { 200: envelope(recordSchema), ...errorReplies(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const outcome = await outputs.record(request.currentUser!, request.params.outputId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.get(
    '/application-outputs/:outputId/status-timeline',
    {
      ...read,
      schema: {
        tags: ['outputs'],
        summary: "An output's status changes: queued, running and the final one with its reason",
        params: idParam('outputId'),
        response: { 200: envelope(timelineSchema), ...errorReplies(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const outcome = await outputs.timeline(request.currentUser!, request.params.outputId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.get(
    '/application-outputs/:applicationId/count',
    {
      ...read,
      schema: {
        tags: ['outputs'],
        summary:
          "How many outputs an application has (the id is the APPLICATION's), and how many are Ongoing",
        params: idParam('applicationId'),
        response: {
          200: envelope({
            type: 'object',
            additionalProperties: false,
            required: ['total', 'ongoing'],
            properties: { total: { type: 'integer' }, ongoing: { type: 'integer' } },
          }),
          ...errorReplies(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await outputs.count(request.currentUser!, request.params.applicationId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.delete(
    '/application-outputs/:outputId/delete',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['outputs'],
        summary: 'Deletes an output: stops it if it runs, then its row, events and files',
        params: idParam('outputId'),
        response: { 200: acknowledgement, ...errorReplies(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const outcome = await outputs.delete(request.currentUser!, request.params.outputId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: OUTPUT_DELETED });
    },
  );

  app.get(
    '/application-outputs/:outputId/stream',
    {
      ...read,
      schema: {
        tags: ['outputs'],
        summary:
          "An output's events as text/event-stream (as /jobs/{id}/events): progress, logs, metrics, charts",
        params: idParam('outputId'),
        ...eventStreamSchema,
      },
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const found = await outputs.find(caller, request.params.outputId);
      if (!found.ok) return sendRefusal(reply, found);
      const jobId = found.value.id;
      await streamJobEvents({
        request,
        reply,
        jobs,
        jobId,
        after: request.query.after ?? -1,
        current: async () => {
          const again = await outputs.find(caller, jobId);
          return again.ok ? again.value : null;
        },
      });
    },
  );
};
