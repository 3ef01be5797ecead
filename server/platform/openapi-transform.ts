// What the OpenAPI document says beyond the route schemas the server validates with.

import type { SwaggerTransform } from '@fastify/swagger';
import { errorReplies } from './reply-schemas';

/** A route's `config`: the request fields it requires although its schema leaves them to a service. */
export interface DocumentedRouteConfig {
  /**
   * Body fields the route refuses when missing, checked by the service so the refusal has the
   * spec's words ('Username is required'); the document lists them as required.
   */
  documentedRequired?: string[];
  /** The same for query parameters ('Model name is required' said by the service, not the schema). */
  documentedRequiredQuery?: string[];
}

declare module 'fastify' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- adds the key to every route's config
  interface FastifyContextConfig extends DocumentedRouteConfig {}
}

/**
 * Every operation as the server answers it: the body's and query's service-checked required fields, and 414 (an
 * address too long) and 431 (headers too large), which any route can answer before it runs.
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url };
  const config = route.config as DocumentedRouteConfig | undefined;
  const required = config?.documentedRequired;
  const body = schema.body as Record<string, unknown> | undefined;
  const query = schema.querystring as { required?: string[] } | undefined;
  const requiredQuery = config?.documentedRequiredQuery && [
    ...new Set([...(query?.required ?? []), ...config.documentedRequiredQuery]),
  ];
  return {
    url,
    schema: {
      ...schema,
      ...(required && body && { body: { ...body, required } }),
      ...(requiredQuery && query && { querystring: { ...query, required: requiredQuery } }),
      response: { ...(schema.response as Record<string, unknown> | undefined), ...errorReplies(414, 431) },
    },
  };
};
