import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** What one request line says: method, route pattern (not the raw URL, which carries user input), status, time. */
const describeRequest = (request: FastifyRequest, reply: FastifyReply) => ({
  method: request.method,
  route: request.routeOptions.url ?? '(no route)',
  status: reply.statusCode,
  ms: Math.round(reply.elapsedTime * 10) / 10,
});

/**
 * At most one line per request, at debug: Fastify's default writes two info lines per request
 * (111 MB an hour under load). A failed reply is still logged at error level.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) reply.log.error({ ...describeRequest(request, reply), err: error }, 'request errored');
    else reply.log.debug(describeRequest(request, reply), 'request');
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ method: request.method }, 'no route');
  }
}
