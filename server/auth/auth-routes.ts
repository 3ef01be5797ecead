import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { AuthService } from './auth-service';
import { LoginThrottle } from './login-throttle';
import { RateStoreUnavailableError, tooManyText } from '../platform/rate-limiter';
import {
  acknowledgement,
  BODY_ERRORS,
  errorBody,
  errorReplies,
  errorReply,
  PUBLIC,
} from '../platform/reply-schemas';

// Text fields reach the database and the log: control characters (NUL among them, which PostgreSQL
// refuses with a server error) are a field error instead.
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F]*$';

const loginBody = {
  type: 'object',
  required: ['username', 'password'],
  properties: {
    grant_type: { type: 'string', enum: ['password'] },
    username: {
      type: 'string',
      minLength: 1,
      maxLength: 320,
      pattern: NO_CONTROL_CHARACTERS,
      description: 'The e-mail address',
      errorMessage: { pattern: 'must not contain control characters' },
    },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
    scope: { type: 'string' },
    client_id: { type: 'string' },
    client_secret: { type: 'string' },
  },
} as const;

const tokenFields = {
  access_token: { type: 'string' },
  token_type: { type: 'string' },
  expires_in: { type: 'integer' },
} as const;

const tokenReply = {
  type: 'object',
  required: ['success', 'access_token', 'token_type', 'expires_in', 'data'],
  properties: {
    success: { type: 'boolean' },
    ...tokenFields,
    data: {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in', 'redirect', 'email'],
      properties: { ...tokenFields, redirect: { type: 'string' }, email: { type: 'string' } },
    },
  },
} as const;

/** The 503 of a sign-in while the throttle's store (Redis, in scale-out) does not answer. */
export const SIGN_IN_UNAVAILABLE =
  'Sign-in is unavailable right now: the server cannot reach Redis, which it needs to count failed sign-in attempts. Please try again in a minute.';

/** A refused sign-in: the error envelope plus where the client goes next (the spec's pending pages). */
const loginRefusal = {
  ...errorReply,
  properties: {
    ...errorReply.properties,
    data: { type: 'object', properties: { redirect: { type: 'string' }, email: { type: 'string' } } },
  },
} as const;

/** POST /login (the spec's form-encoded password grant), POST /logout. GET /users/me: server/accounts. */
export const authRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { auth: AuthService; throttle?: LoginThrottle };
}> = async (app, { auth, throttle = new LoginThrottle() }) => {
  app.post(
    '/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password (OAuth2 password grant, form-encoded or JSON)',
        security: PUBLIC,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        body: loginBody,
        response: {
          200: tokenReply,
          ...errorReplies(...BODY_ERRORS, 429, 503),
          401: { ...loginRefusal, description: 'Incorrect e-mail or password' },
          403: { ...loginRefusal, description: 'E-mail not verified, account not approved, or no role' },
        },
      },
    },
    async (request, reply) => {
      // A token reply must not be kept by caches (RFC 6749 5.1); refusals neither.
      void reply.header('cache-control', 'no-store');
      const email = request.body.username.trim();
      let wait: number;
      try {
        wait = await throttle.retryAfterSeconds(request.ip, email);
      } catch (error) {
        if (!(error instanceof RateStoreUnavailableError)) throw error;
        request.log.warn({ err: error.cause }, 'sign-in refused: the throttle store does not answer');
        return reply.code(503).header('retry-after', '60').send(errorBody(SIGN_IN_UNAVAILABLE));
      }
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('failed sign-in attempts', wait)));
      }
      const outcome = await auth.login(email, request.body.password);
      try {
        if (outcome.ok) await throttle.recordSuccess(request.ip, email);
        else if (outcome.status === 401) await throttle.recordFailure(request.ip, email);
      } catch (error) {
        // The store answered the check a moment ago; the answer stands, the count is not kept.
        if (!(error instanceof RateStoreUnavailableError)) throw error;
        request.log.warn(
          { err: error.cause },
          'sign-in outcome not counted: the throttle store does not answer',
        );
      }
      if (!outcome.ok) {
        return reply.code(outcome.status).send({
          ...errorBody(outcome.detail),
          ...(outcome.redirect && { data: { redirect: outcome.redirect, email: outcome.email } }),
        });
      }
      const token = {
        access_token: outcome.accessToken,
        token_type: 'bearer',
        expires_in: outcome.expiresIn,
      };
      return reply.code(200).send({
        success: true,
        ...token,
        data: { ...token, redirect: '/profile', email: outcome.user.email },
      });
    },
  );

  app.post(
    '/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the current access token',
        response: { 200: acknowledgement, ...errorReplies(401, 413, 415) },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      await auth.logout(request.currentUser!.id, request.sessionId!);
      return reply.code(200).send({ success: true, message: 'Signed out' });
    },
  );
};
