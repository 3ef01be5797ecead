import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyRequest } from 'fastify';
import { tooManyText, type RateLimiter, type RateRule } from '../platform/rate-limiter';
import { envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { PROVIDER_IDS } from './oauth-providers';
import { STATE_TTL_SECONDS, type SocialSignIn } from './social-sign-in';

/** Sign-ins one address may start in 15 minutes (each keeps a row until it is used or expires). */
export const startRules = (address: string): RateRule[] => [
  { key: `oauth-start:ip:${address}`, max: 30, windowMs: 15 * 60 * 1000 },
];

/** The cookie that ties a sign-in's state to the browser that started it (login CSRF). */
const STATE_COOKIE = 'qml_oauth_state';
const COOKIE_PATH = '/api/oauth2/callback';

function stateCookie(value: string, maxAge: number, secure: boolean): string {
  return [
    `${STATE_COOKIE}=${value}`,
    `Path=${COOKIE_PATH}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    // Lax: the provider's redirect back is a top-level GET, which carries it.
    'SameSite=Lax',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

function cookieState(request: FastifyRequest): string | null {
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === STATE_COOKIE) return value.join('=') || null;
  }
  return null;
}

const providerParams = {
  type: 'object',
  required: ['provider'],
  properties: { provider: { type: 'string', maxLength: 20 } },
} as const;

const redirectReply = {
  description: 'To the provider (authorize) or back to the front end (callback)',
  type: 'null',
} as const;

/** Social sign-in: which providers are offered, the start at the provider and the callback. */
export const oauthRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { social: SocialSignIn; limiter: RateLimiter };
}> = async (app, { social, limiter }) => {
  app.get(
    '/oauth2/providers',
    {
      schema: {
        tags: ['auth'],
        summary: 'The social sign-in providers this deployment offers',
        security: PUBLIC,
        response: {
          200: envelope({
            type: 'object',
            required: ['providers'],
            properties: { providers: { type: 'array', items: { type: 'string', enum: PROVIDER_IDS } } },
          }),
        },
      },
    },
    async (_request, reply) => reply.code(200).send({ success: true, data: { providers: social.offered() } }),
  );

  app.get(
    '/oauth2/authorize/:provider',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Start social sign-in: redirects to the provider; it comes back to the callback, then to redirect_uri',
        security: PUBLIC,
        params: providerParams,
        querystring: {
          type: 'object',
          properties: {
            redirect_uri: {
              type: 'string',
              maxLength: 2000,
              description:
                'Where the browser goes with ?token= (or ?error=) at the end; must be on PUBLIC_URL',
            },
          },
        },
        response: { 302: redirectReply, ...errorReplies(400, 404, 429) },
      },
    },
    async (request, reply) => {
      const provider = social.provider(request.params.provider);
      if (!provider) return reply.code(404).send(errorBody('This sign-in provider is not offered here'));
      const redirectUri = request.query.redirect_uri ?? social.defaultRedirect;
      if (!social.allowsRedirect(redirectUri)) {
        const message = '/redirect_uri must be an address of this site';
        return reply.code(400).send(errorBody(message, [{ field: '/redirect_uri', message }]));
      }
      const wait = await limiter.attempt(startRules(request.ip));
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody(tooManyText('sign-in attempts', wait)));
      }
      const started = await social.start(provider, redirectUri).catch((error: unknown) => {
        // The provider's discovery document did not answer: the front end hears it as ?error=.
        request.log.warn(
          { provider: provider.id, err: error instanceof Error ? error.message : 'error' },
          'social sign-in could not start',
        );
        return null;
      });
      if (!started) {
        return reply
          .header('cache-control', 'no-store')
          .redirect(social.errorRedirect(redirectUri, 'provider_error'), 302);
      }
      const { url, state } = started;
      return reply
        .header('set-cookie', stateCookie(state, STATE_TTL_SECONDS, social.secureCookies))
        .header('cache-control', 'no-store')
        .redirect(url, 302);
    },
  );

  app.get(
    '/oauth2/callback/:provider',
    {
      schema: {
        tags: ['auth'],
        summary: "The provider's redirect back: signs in and sends the browser on with ?token= or ?error=",
        security: PUBLIC,
        params: providerParams,
        querystring: {
          type: 'object',
          properties: {
            code: { type: 'string', maxLength: 2000 },
            state: { type: 'string', maxLength: 200 },
            error: { type: 'string', maxLength: 200 },
          },
        },
        response: { 302: redirectReply, ...errorReplies(400, 404) },
      },
    },
    async (request, reply) => {
      const provider = social.provider(request.params.provider);
      if (!provider) return reply.code(404).send(errorBody('This sign-in provider is not offered here'));
      const { location } = await social.finish(provider, request.query, cookieState(request));
      return reply
        .header('set-cookie', stateCookie('', 0, social.secureCookies))
        .header('cache-control', 'no-store')
        .redirect(location, 302);
    },
  );
};
