import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthService } from './auth-service';
import type { UserRecord } from './users-repository';
import { errorBody } from '../platform/reply-schemas';

declare module 'fastify' {
  interface FastifyRequest {
    currentUser: UserRecord | null;
    sessionId: string | null;
    /** A bearer token was sent but is invalid, expired or revoked (RFC 6750 `invalid_token`). */
    tokenRejected: boolean;
  }
  interface FastifyInstance {
    requireUser: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

export const isAdmin = (user: UserRecord): boolean => user.roles.includes('admin');

/** The 401 reply, with the challenge RFC 6750 asks for: `error="invalid_token"` when a token was sent. */
async function refuseAnonymous(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const challenge = request.tokenRejected
    ? 'Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked"'
    : 'Bearer';
  const detail = request.tokenRejected
    ? 'Your session has expired or is no longer valid. Please log in again.'
    : 'User not authenticated. Please log in.';
  await reply.code(401).header('www-authenticate', challenge).send(errorBody(detail));
}

/** Reads the bearer token on every request; routes opt in with `onRequest: app.requireUser` (or
 * requireAdmin), which runs before body validation, so strangers learn nothing about a route. */
export const authPlugin = fp<{ auth: AuthService }>(async (app, { auth }) => {
  app.decorateRequest('currentUser', null);
  app.decorateRequest('sessionId', null);
  app.decorateRequest('tokenRejected', false);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header?.toLowerCase().startsWith('bearer ')) return;
    const found = await auth.authenticate(header.slice(7).trim());
    if (found) {
      request.currentUser = found.user;
      request.sessionId = found.sessionId;
    } else {
      request.tokenRejected = true;
    }
  });
  app.decorate('requireUser', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.currentUser) await refuseAnonymous(request, reply);
  });
  app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.currentUser) await refuseAnonymous(request, reply);
    else if (!isAdmin(request.currentUser)) {
      await reply.code(403).send(errorBody('This action needs an administrator.'));
    }
  });
});
