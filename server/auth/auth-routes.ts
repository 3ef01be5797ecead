import type { FastifyPluginAsync } from 'fastify';
import type { AuthService } from './auth-service';
import { LoginThrottle } from './login-throttle';
import { envelope } from '../platform/reply-schemas';

const userSchema = {
  type: 'object',
  required: ['id', 'name', 'email', 'email_verified', 'is_approved', 'roles'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    email: { type: 'string' },
    email_verified: { type: 'boolean' },
    is_approved: { type: 'boolean' },
    roles: { type: 'array', items: { type: 'string' } },
  },
} as const;

const errorSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    detail: { type: 'string' },
    message: { type: 'string' },
    data: { type: 'object', properties: { redirect: { type: 'string' }, email: { type: 'string' } } },
  },
} as const;

/** POST /login (the spec's form-encoded password grant), POST /logout, GET /users/me. */
export const authRoutes: FastifyPluginAsync<{ auth: AuthService; throttle?: LoginThrottle }> = async (
  app,
  { auth, throttle = new LoginThrottle() },
) => {
  app.post<{
    Body: {
      grant_type?: string;
      username: string;
      password: string;
      scope?: string;
      client_id?: string;
      client_secret?: string;
    };
  }>(
    '/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password (OAuth2 password grant, form-encoded)',
        consumes: ['application/x-www-form-urlencoded'],
        body: {
          type: 'object',
          required: ['username', 'password'],
          properties: {
            grant_type: { type: 'string', enum: ['password'] },
            username: { type: 'string', minLength: 1, maxLength: 320, description: 'The e-mail address' },
            password: { type: 'string', minLength: 1, maxLength: 1024 },
            scope: { type: 'string' },
            client_id: { type: 'string' },
            client_secret: { type: 'string' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              success: { type: 'boolean' },
              access_token: { type: 'string' },
              token_type: { type: 'string' },
              expires_in: { type: 'integer' },
              data: {
                type: 'object',
                properties: {
                  access_token: { type: 'string' },
                  token_type: { type: 'string' },
                  expires_in: { type: 'integer' },
                  redirect: { type: 'string' },
                  email: { type: 'string' },
                },
              },
            },
          },
          401: errorSchema,
          403: errorSchema,
          429: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const email = request.body.username.trim();
      const wait = throttle.retryAfterSeconds(request.ip, email);
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send({
            success: false,
            detail: `Too many failed sign-in attempts. Please try again in ${Math.ceil(wait / 60)} minutes.`,
          });
      }
      const outcome = await auth.login(email, request.body.password);
      if (outcome.ok) throttle.recordSuccess(request.ip, email);
      else if (outcome.status === 401) throttle.recordFailure(request.ip, email);
      if (!outcome.ok) {
        return reply.code(outcome.status).send({
          success: false,
          detail: outcome.detail,
          data: outcome.redirect ? { redirect: outcome.redirect, email: outcome.email } : undefined,
        });
      }
      const token = {
        access_token: outcome.accessToken,
        token_type: 'bearer',
        expires_in: outcome.expiresIn,
      };
      return { success: true, ...token, data: { ...token, redirect: '/profile', email: outcome.user.email } };
    },
  );

  app.post(
    '/logout',
    { schema: { tags: ['auth'], summary: 'Revoke the current access token' }, onRequest: app.requireUser },
    async (request) => {
      await auth.sessions.revoke(request.sessionId!);
      return { success: true };
    },
  );

  app.get(
    '/users/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user',
        response: { 200: envelope(userSchema) },
      },
      onRequest: app.requireUser,
    },
    async (request) => {
      const { password_hash: _omit, ...user } = request.currentUser!;
      return { success: true, data: user };
    },
  );
};
