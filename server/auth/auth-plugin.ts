import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { AuthService } from './auth-service';
import type { UserRecord } from './users-repository';

declare module 'fastify' {
  interface FastifyRequest {
    currentUser: UserRecord | null;
    sessionId: string | null;
  }
  interface FastifyInstance {
    requireUser: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

export const isAdmin = (user: UserRecord): boolean => user.roles.includes('admin');

/** Reads the bearer token on every request; routes opt in with `onRequest: app.requireUser` (or
 * requireAdmin), which runs before body validation, so strangers learn nothing about a route. */
export const authPlugin = fp<{ auth: AuthService }>(async (app, { auth }) => {
  app.decorateRequest('currentUser', null);
  app.decorateRequest('sessionId', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (!header?.toLowerCase().startsWith('bearer ')) return;
    const found = await auth.authenticate(header.slice(7).trim());
    if (found) {
      request.currentUser = found.user;
      request.sessionId = found.sessionId;
    }
  });
  app.decorate('requireUser', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.currentUser) {
      await reply.code(401).send({ success: false, message: 'User not authenticated. Please log in.' });
    }
  });
  app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.currentUser) {
      await reply.code(401).send({ success: false, message: 'User not authenticated. Please log in.' });
    } else if (!isAdmin(request.currentUser)) {
      await reply.code(403).send({ success: false, message: 'This action needs an administrator.' });
    }
  });
});
