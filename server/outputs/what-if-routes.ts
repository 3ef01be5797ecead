import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { idParam } from '../platform/id-schemas';
import { readById } from '../platform/read-by-id';
import { acknowledgementWith, BODY_ERRORS, errorReplies, sendRefusal } from '../platform/reply-schemas';
import { APPLICATION_RUNNING } from './outputs-service';
import type { WhatIfService } from './what-if-service';

const backendSchema = {
  description:
    '\'ideal\' (the ideal simulator), {"noise_model": name} (a noise model of the problem\'s list) or {"device": name} (an IBM device of its list)',
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      additionalProperties: false,
      required: ['noise_model'],
      properties: { noise_model: { type: 'string', maxLength: 100 } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['device'],
      properties: { device: { type: 'string', maxLength: 100 } },
    },
  ],
} as const;

const choiceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'label'],
  properties: {
    name: { type: 'string', description: 'What the request names (fake_kyiv, ibm_kyiv)' },
    label: { type: 'string', description: "The schema's label, as the form shows it" },
    refused: {
      type: 'string',
      description: "Present when the re-run's configuration may not use it: the schema's reason",
    },
  },
} as const;

const choicesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['available', 'backend', 'backend_label', 'noise_models', 'devices'],
  properties: {
    available: { type: 'boolean', description: 'Whether it may be re-run: Completed and quantum' },
    backend: { ...backendSchema, description: 'Where the output ran' },
    backend_label: { type: 'string', description: 'Where the output ran, labelled' },
    noise_models: { type: 'array', items: choiceSchema },
    devices: { type: 'array', items: choiceSchema },
  },
} as const;

/**
 * Noise what-if: `GET /application-outputs/{id}/what-if` says where an output ran and which
 * backends its problem offers; `POST` re-runs a Completed quantum output under another one with the same
 * body, seed and split, as a new output of the same application. Owner only.
 */
export const whatIfRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { whatIf: WhatIfService } }> = async (
  app,
  { whatIf },
) => {
  app.get(
    '/application-outputs/:outputId/what-if',
    readById(app, {
      tag: 'outputs',
      summary: 'Where a quantum output ran and the backends a what-if re-run may choose, labelled',
      param: 'outputId',
      data: choicesSchema,
    }),
    async (request, reply) => {
      const outcome = await whatIf.choices(request.currentUser!, request.params.outputId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.value });
    },
  );

  app.post(
    '/application-outputs/:outputId/what-if',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['outputs'],
        summary:
          'Re-run a Completed quantum output under another backend (same body, seed and split) as a new output',
        params: idParam('outputId'),
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['backend'],
          properties: { backend: backendSchema },
        },
        response: {
          201: acknowledgementWith({
            type: 'object',
            additionalProperties: false,
            required: ['output_id', 'name'],
            properties: { output_id: { type: 'integer' }, name: { type: 'string' } },
          }),
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await whatIf.rerun(request.currentUser!, request.params.outputId, request.body.backend);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(201).send({
        success: true,
        message: APPLICATION_RUNNING,
        data: { output_id: outcome.outputId, name: outcome.name },
      });
    },
  );
};
