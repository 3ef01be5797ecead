// The one shape of a signed-in read of one thing by its id (GET /applications/{appId}/detail,
// GET /application-outputs/{outputId}/what-if, ...): the route's options in one place, so the reads of the
// applications and the outputs do not each spell out the same id param, envelope and refusals.

import type { FastifyInstance } from 'fastify';
import { idParam } from './id-schemas';
import { envelope, errorReplies } from './reply-schemas';

/**
 * Options of `app.get(url, readById(app, {...}), handler)`: signed in only; the id `param` of the path
 * (an integer, else 400); 200 with `{ success: true, data }` of the `data` schema; 401 and 404 (not
 * yours, or not there). The handler answers a service's refusal with `sendRefusal`.
 */
export const readById = <const Name extends string, const Data extends object>(
  app: Pick<FastifyInstance, 'requireUser'>,
  spec: { tag: string; summary: string; param: Name; data: Data },
) => ({
  onRequest: app.requireUser,
  schema: {
    tags: [spec.tag],
    summary: spec.summary,
    params: idParam(spec.param),
    response: { 200: envelope(spec.data), ...errorReplies(400, 401, 404) },
  },
});
