import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  mapJobRequest,
  validateAppData,
  validateJobBody,
  type AppData,
  type EngineContext,
  type Registry,
} from '../../src/engine';
import { isAdmin } from '../auth/auth-plugin';
import { BODY_ERRORS, envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { sendConditional } from '../platform/conditional-get';
import type { SchemaFiles, ServedBody } from './schema-files';

const summarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    category: { type: 'string' },
    categoryName: { type: 'string' },
    listed: { type: 'boolean' },
    workspace: { type: 'string' },
    description: { type: 'string' },
    useCases: { type: 'array', items: { type: 'string' } },
  },
} as const;

const fieldErrorSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string' },
    field: { type: 'string' },
    label: { type: 'string' },
    message: { type: 'string' },
  },
} as const;

const checkBody = {
  type: 'object',
  required: ['app_data'],
  properties: {
    app_data: { type: 'object', additionalProperties: true },
    context: {
      type: 'object',
      additionalProperties: false,
      properties: {
        row_count: { type: 'integer', minimum: 0 },
        columns: { type: 'array', items: { type: 'string' }, maxItems: 10000 },
        application_id: { type: 'integer', minimum: 1 },
      },
    },
  },
} as const;

/**
 * A body the server makes once (the schema files, their validators): the browser keeps its copy but
 * asks each time (a changed SCHEMAS_DIR is seen after a restart), 304 for the copy it holds, gzip
 * for a client that takes it.
 */
const sendServed = (request: FastifyRequest, reply: FastifyReply, served: ServedBody, type: string) =>
  sendConditional(request, reply, { etag: served.etag, body: served.body, gzipped: served.gzipped, type });

/**
 * The problem registry on the server: the same engine and schema files the browser uses, so the
 * server refuses what the form refuses, with the same messages.
 */
export const problemsRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { registry: Registry; schemaFiles: SchemaFiles };
}> = async (app, { registry, schemaFiles }) => {
  app.get(
    '/schemas',
    {
      schema: {
        tags: ['problems'],
        summary: "The schema files the server loaded (SCHEMAS_DIR), keyed by path: the browser's registry",
        security: PUBLIC,
        response: {
          200: {
            ...envelope({ type: 'object', additionalProperties: true }),
            description: 'data: { "problems/<id>.json": <file>, "defs.json": <file>, ... }',
          },
          304: {
            description: 'Not modified: the copy the client holds (If-None-Match) is current',
          },
        },
      },
    },
    async (request, reply) =>
      sendServed(request, reply, schemaFiles.files, 'application/json; charset=utf-8'),
  );

  app.get(
    '/schemas/validators.js',
    {
      schema: {
        tags: ['problems'],
        summary:
          "The browser's validators for the schema files GET /api/schemas sends: an ES module written from them",
        description:
          'export default (runtime) => ({ problems: { <id>: { appData, jobBody, fingerprint } }, accountForms }); ' +
          "runtime is the web app's src/engine/validator-runtime.ts. The browser's CSP has no 'unsafe-eval', so it " +
          'runs these instead of compiling the schemas.',
        security: PUBLIC,
        produces: ['text/javascript'],
        response: {
          200: { description: 'The module (text/javascript)', type: 'string' },
          304: {
            description: 'Not modified: the copy the client holds (If-None-Match) is current',
          },
        },
      },
    },
    async (request, reply) =>
      sendServed(request, reply, schemaFiles.validators, 'text/javascript; charset=utf-8'),
  );

  app.get(
    '/problems',
    {
      schema: {
        tags: ['problems'],
        summary: 'The problem types; unlisted ones for admins on request',
        // Open to everyone; a bearer token only matters for include_unlisted (admins).
        security: PUBLIC,
        querystring: { type: 'object', properties: { include_unlisted: { type: 'boolean' } } },
        response: {
          200: envelope({ type: 'array', items: summarySchema }),
          ...errorReplies(400),
        },
      },
    },
    async (request, reply) => {
      const includeUnlisted =
        Boolean(request.query.include_unlisted) &&
        Boolean(request.currentUser && isAdmin(request.currentUser));
      return reply.code(200).send({ success: true, data: registry.listProblems({ includeUnlisted }) });
    },
  );

  app.post(
    '/problems/:id/check',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['problems'],
        summary: "Validate an application's app_data and preview the execute-job request it maps to",
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } },
        body: checkBody,
        response: {
          200: {
            type: 'object',
            properties: {
              success: { type: 'boolean' },
              data: {
                type: 'object',
                properties: {
                  valid: { type: 'boolean' },
                  errors: { type: 'array', items: fieldErrorSchema },
                  job_request: { type: 'object', additionalProperties: true },
                },
              },
            },
          },
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const problem = registry.findProblem(request.params.id);
      if (!problem) return reply.code(404).send(errorBody('Unknown problem'));
      const { context = {} } = request.body;
      const appData = request.body.app_data as AppData;
      const engineContext: EngineContext = {
        rowCount: context.row_count,
        columns: context.columns,
        applicationId: context.application_id ?? 0,
        userId: request.currentUser!.id,
      };
      const validation = validateAppData(problem, appData, engineContext);
      if (!validation.valid) {
        return reply.code(200).send({ success: true, data: { valid: false, errors: validation.errors } });
      }
      const jobRequest = mapJobRequest(problem, appData, engineContext);
      const body = validateJobBody(problem, jobRequest.body);
      return reply.code(200).send({
        success: true,
        data: { valid: body.valid, errors: body.errors, job_request: { ...jobRequest } },
      });
    },
  );
};
