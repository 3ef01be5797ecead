import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import {
  acknowledgement,
  acknowledgementWith,
  BODY_ERRORS,
  errorReplies,
  sendRefusal,
} from '../platform/reply-schemas';
import {
  appDataSchema,
  applicationDetailSchema,
  applicationSummarySchema,
  createdApplicationSchema,
  outputSummarySchema,
  userIdSchema,
} from './application-schemas';
import { idParam } from '../platform/id-schemas';
import { readById } from '../platform/read-by-id';
import { plainText } from '../platform/text-schemas';
import {
  APPLICATION_CREATED,
  APPLICATION_DELETED,
  APPLICATION_SAVED,
  type ApplicationsService,
} from './applications-service';

// Control characters are a field error here (server/platform/text-schemas.ts); the length rule and
// its message are the create-application form's (the service).
const nameAndProblem = {
  app_name: plainText(1000),
  app_problem_id: plainText(200),
  user_id: userIdSchema,
} as const;

const createBlankBody = {
  type: 'object',
  required: ['user_id'],
  properties: {
    ...nameAndProblem,
    status: { type: 'string', enum: ['active'], description: "Always 'active' on create" },
  },
} as const;

const createWithDataBody = {
  type: 'object',
  required: ['user_id', 'app_data'],
  properties: { ...nameAndProblem, app_data: appDataSchema },
} as const;

const createdReply = acknowledgementWith(createdApplicationSchema);

/** Two paths of the spec, one operation: a new application of the user's holding the given app_data. */
const CREATE_WITH_DATA = [
  {
    url: '/applications/create-from-example',
    summary: "A new application from an example's app_data (checked by the schema engine)",
    withoutTokens: false,
  },
  {
    url: '/applications/copy-to-user',
    summary:
      "Copies app_data (an example's) into a new application of the user's, without a custom IBM token (the recipient sets their own)",
    withoutTokens: true,
  },
] as const;

/**
 * Applications (spec platform-shell.md section 7): create (blank, from an example, a copy), list,
 * detail, save app_data, delete, outputs. Someone else's user id or application is a 404.
 */
export const applicationsRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { applications: ApplicationsService };
}> = async (app, { applications }) => {
  app.post(
    '/applications/create-blank',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['applications'],
        summary:
          "A new application with the problem's default app_data (for the user or, by an admin, anyone)",
        body: createBlankBody,
        response: { 201: createdReply, ...errorReplies(...BODY_ERRORS, 401, 404) },
      },
    },
    async (request, reply) => {
      const outcome = await applications.createBlank(request.currentUser!, request.body);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(201).send({ success: true, message: APPLICATION_CREATED, data: outcome.application });
    },
  );

  for (const { url, summary, withoutTokens } of CREATE_WITH_DATA) {
    app.post(
      url,
      {
        onRequest: app.requireUser,
        schema: {
          tags: ['applications'],
          summary,
          body: createWithDataBody,
          response: { 201: createdReply, ...errorReplies(...BODY_ERRORS, 401, 404) },
        },
      },
      async (request, reply) => {
        const outcome = await applications.createWithData(request.currentUser!, request.body, {
          withoutTokens,
        });
        if (!outcome.ok) return sendRefusal(reply, outcome);
        return reply
          .code(201)
          .send({ success: true, message: APPLICATION_CREATED, data: outcome.application });
      },
    );
  }

  app.get(
    '/applications/:userId/all',
    readById(app, {
      tag: 'applications',
      summary: "A user's applications, newest first (the user's own, or any for an admin)",
      param: 'userId',
      data: { type: 'array', items: applicationSummarySchema },
    }),
    async (request, reply) => {
      const outcome = await applications.list(request.currentUser!, request.params.userId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.applications });
    },
  );

  app.get(
    '/applications/:appId/detail',
    readById(app, {
      tag: 'applications',
      summary: 'One application with its app_data',
      param: 'appId',
      data: applicationDetailSchema,
    }),
    async (request, reply) => {
      const outcome = await applications.detail(request.currentUser!, request.params.appId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.application });
    },
  );

  app.put(
    '/applications/update-app-data',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['applications'],
        summary: "Saves an application's app_data whole, or refuses it whole with each field's message",
        body: {
          type: 'object',
          required: ['application_id', 'user_id', 'app_data'],
          properties: { application_id: userIdSchema, user_id: userIdSchema, app_data: appDataSchema },
        },
        response: {
          200: acknowledgementWith(applicationDetailSchema),
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const outcome = await applications.updateAppData(request.currentUser!, request.body);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: APPLICATION_SAVED, data: outcome.application });
    },
  );

  app.delete(
    '/applications/:appId/delete-by-user/:userId',
    {
      onRequest: app.requireUser,
      schema: {
        tags: ['applications'],
        summary: 'Deletes an application with its outputs and files',
        params: {
          type: 'object',
          required: ['appId', 'userId'],
          properties: { ...idParam('appId').properties, ...idParam('userId').properties },
        },
        response: { 200: acknowledgement, ...errorReplies(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { appId, userId } = request.params;
      const outcome = await applications.delete(request.currentUser!, appId, userId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: APPLICATION_DELETED });
    },
  );

  app.get(
    '/application-outputs/:applicationId/all',
    readById(app, {
      tag: 'applications',
      summary: "An application's outputs (its runs), newest first",
      param: 'applicationId',
      data: { type: 'array', items: outputSummarySchema },
    }),
    async (request, reply) => {
      const outcome = await applications.outputs(request.currentUser!, request.params.applicationId);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: outcome.outputs });
    },
  );
};
