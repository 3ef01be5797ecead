import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import {
  acknowledgement,
  acknowledgementWith,
  BODY_ERRORS,
  envelope,
  errorBody,
  sendRefusal,
  errorReplies,
  PUBLIC,
} from '../platform/reply-schemas';
import { PROFILE_UPDATED, REGISTERED, VERIFICATION_SENT, type AccountsService } from './accounts-service';
import { ACCOUNT_IDENTITY_REQUIRED, accountIdentityProperties } from '../auth/account-schemas';
import { idParams } from '../platform/id-schemas';
import { NO_CONTROL_CHARACTERS, plainText } from '../platform/text-schemas';

// The routes only type the values; the rules and their messages are the account forms' (the
// engine validates them in the service), so a field's message is the spec's, not ajv's.

// Text that reaches the database and the log (server/platform/text-schemas.ts), or null.
const nullableText = (maxLength: number) =>
  ({
    type: ['string', 'null'],
    maxLength,
    pattern: NO_CONTROL_CHARACTERS,
    errorMessage: { pattern: 'must not contain control characters' },
  }) as const;

const currentUserSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...ACCOUNT_IDENTITY_REQUIRED, 'dob', 'image_url', 'provided_timezone', 'has_custom_ibmq_token'],
  properties: {
    ...accountIdentityProperties,
    dob: { type: ['string', 'null'], description: 'YYYY-MM-DD' },
    image_url: { type: ['string', 'null'] },
    provided_timezone: { type: ['string', 'null'], description: 'IANA time-zone name' },
    has_custom_ibmq_token: {
      type: 'boolean',
      description:
        'Whether a quantum-provider token is stored (the token itself: GET /users/{id}/ibmq-token)',
    },
  },
} as const;

const registerBody = {
  type: 'object',
  properties: {
    name: plainText(200),
    email: plainText(320),
    password: { type: 'string', maxLength: 1024 },
    role_ids: { description: 'Ignored: a new account has no role until an admin approves it' },
  },
} as const;

const profileBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: plainText(200),
    dob: nullableText(40),
    image_url: nullableText(4096),
    custom_ibmq_token: nullableText(4096),
    provided_timezone: nullableText(200),
    old_password: { type: 'string', maxLength: 1024 },
    new_password: { type: 'string', maxLength: 1024 },
    confirm_new_password: { type: 'string', maxLength: 1024 },
  },
} as const;

const redirect = { description: 'Redirect to the front end (Location header)', type: 'null' } as const;

/** Registration, e-mail verification, approval status, the current user and the profile. */
export const accountsRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { accounts: AccountsService; publicUrl: string };
}> = async (app, { accounts, publicUrl }) => {
  app.post(
    '/users',
    {
      // Checked by the service with the spec's messages ('Username is required').
      config: { documentedRequired: ['name', 'email', 'password'] },
      schema: {
        tags: ['accounts'],
        summary: 'Register (the account then needs a verified e-mail and an admin approval)',
        security: PUBLIC,
        body: registerBody,
        response: {
          201: acknowledgementWith({
            type: 'object',
            required: ['id', 'email'],
            properties: { id: { type: 'integer' }, email: { type: 'string' } },
          }),
          ...errorReplies(...BODY_ERRORS, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const outcome = await accounts.register(request.body, request.ip);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply
        .code(201)
        .send({ success: true, message: REGISTERED, data: { id: outcome.id, email: outcome.email } });
    },
  );

  app.get(
    '/users/verify-email',
    {
      schema: {
        tags: ['accounts'],
        summary: "Opens an e-mail verification link, then redirects to the front end's /email-verified",
        security: PUBLIC,
        querystring: { type: 'object', properties: { token: { type: 'string', maxLength: 200 } } },
        response: { 302: redirect, ...errorReplies(400) },
      },
    },
    async (request, reply) => {
      const ok = await accounts.verifyEmail(request.query.token ?? '');
      return reply.redirect(`${publicUrl}/email-verified${ok ? '' : '?status=invalid'}`, 302);
    },
  );

  app.post(
    '/users/resend-verification',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Mails a new verification link (the same reply whether or not the account exists)',
        security: PUBLIC,
        body: { type: 'object', required: ['email'], properties: { email: plainText(320) } },
        response: { 200: acknowledgement, ...errorReplies(...BODY_ERRORS, 429) },
      },
    },
    async (request, reply) => {
      const outcome = await accounts.resendVerification(request.body.email);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: VERIFICATION_SENT });
    },
  );

  app.get(
    '/users/approval-status',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Whether an e-mail is verified and approved (false/false for unknown e-mails)',
        security: PUBLIC,
        querystring: { type: 'object', properties: { email: { type: 'string', maxLength: 320 } } },
        response: {
          200: {
            type: 'object',
            required: ['success', 'extra_data'],
            properties: {
              success: { type: 'boolean' },
              extra_data: {
                type: 'object',
                required: ['email_verified', 'is_approved'],
                properties: { email_verified: { type: 'boolean' }, is_approved: { type: 'boolean' } },
              },
            },
          },
          ...errorReplies(400),
        },
      },
    },
    async (request, reply) => {
      const status = await accounts.approvalStatus(request.query.email ?? '');
      return reply.code(200).send({ success: true, extra_data: status });
    },
  );

  app.get(
    '/users/me',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The signed-in user (never the provider token)',
        response: { 200: envelope(currentUserSchema), ...errorReplies(401) },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const user = await accounts.me(request.currentUser!.id);
      if (!user) return reply.code(401).send(errorBody('Not signed in'));
      return reply.code(200).send({ success: true, data: user });
    },
  );

  app.get(
    '/users/:id/ibmq-token',
    {
      schema: {
        tags: ['accounts'],
        summary: "The owner's own quantum-provider token, for their edit form (anyone else: 404)",
        params: idParams,
        response: {
          200: envelope({
            type: 'object',
            required: ['custom_ibmq_token'],
            properties: { custom_ibmq_token: { type: ['string', 'null'] } },
          }),
          ...errorReplies(400, 401, 404),
        },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const outcome = await accounts.providerToken(request.currentUser!, request.params.id);
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, data: { custom_ibmq_token: outcome.token } });
    },
  );

  app.put(
    '/users/:id',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Update a profile or settings (the owner or an admin; anyone else: 404)',
        params: idParams,
        body: profileBody,
        response: {
          200: acknowledgementWith(currentUserSchema),
          ...errorReplies(...BODY_ERRORS, 401, 404),
        },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const user = request.currentUser!;
      const outcome = await accounts.updateProfile(
        { id: user.id, roles: user.roles, sessionId: request.sessionId ?? null },
        request.params.id,
        request.body,
      );
      if (!outcome.ok) return sendRefusal(reply, outcome);
      return reply.code(200).send({ success: true, message: PROFILE_UPDATED, data: outcome.user });
    },
  );
};
