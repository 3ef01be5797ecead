// GET /datasets/fetch?url=: the workspace's "Link URL" reads an external CSV through the server (a
// browser cannot fetch most sites' files across origins). The fetch is the jobs' own: the SSRF-safe
// UrlFetcher and its cache (url-fetcher.ts), inspected as an upload is and capped at UPLOAD_MAX_BYTES.
// Samples and own uploads are not fetched here: the browser reads them from /download.

import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { errorBody, errorReplies } from '../platform/reply-schemas';
import { DatasetRefusal } from './dataset-refusal';
import { UrlUnreachable, type UrlFetcher } from './url-fetcher';

/** Dataset URL fetches one account may make in an hour (as many as uploads). */
export const datasetFetchRules = (userId: number): RateRule[] => [
  { key: `dataset-fetch:user:${userId}`, max: 60, windowMs: 60 * 60 * 1000 },
];

const fetchQuery = {
  type: 'object',
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'The http(s) address of a CSV file on a public server',
    },
  },
} as const;

export const datasetFetchRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { fetcher: Pick<UrlFetcher, 'fetch'>; limiter: RateLimiter };
}> = async (app, { fetcher, limiter }) => {
  app.get(
    '/datasets/fetch',
    {
      schema: {
        tags: ['datasets'],
        summary:
          'Fetch a CSV from a public http(s) URL for the workspace (private and loopback addresses refused, size-capped like uploads, checked as an upload is)',
        querystring: fetchQuery,
        response: {
          200: {
            description: 'The CSV file as fetched',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...errorReplies(400, 401, 413, 429, 502),
        },
      },
      onRequest: app.requireUser,
    },
    async (request, reply) => {
      const caller = request.currentUser!;
      const wait = await limiter.attempt(datasetFetchRules(caller.id));
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('dataset fetches', wait)));
      }
      try {
        const fetched = await fetcher.fetch(request.query.url.trim());
        return (
          reply
            .code(200)
            .header('content-type', 'text/csv; charset=utf-8')
            .header('cache-control', 'private, no-store')
            // Fastify streams a ReadStream as it is; the type provider reads the reply schema as a string.
            .send(createReadStream(fetched.path) as unknown as string)
        );
      } catch (error) {
        // The far server failed us: 502. Otherwise the URL or its file is the problem: 400/413.
        if (error instanceof UrlUnreachable) return reply.code(502).send(errorBody(error.message));
        if (error instanceof DatasetRefusal) {
          if (error.status === 413) return reply.code(413).send(errorBody(error.message));
          return reply.code(400).send(errorBody(error.message, [{ field: '/url', message: error.message }]));
        }
        throw error;
      }
    },
  );
};
