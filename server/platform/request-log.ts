import type { FastifyInstance } from 'fastify';

/**
 * One debug line per finished request (Fastify's own two info lines per request are turned off
 * with disableRequestLogging): method, route pattern (not the raw URL, which carries user input),
 * status and time. Under load at the default level nothing is written per request.
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug(
      {
        method: request.method,
        route: request.routeOptions.url ?? '(no route)',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
