// A local OpenID Connect provider standing in for Google in the end-to-end tests (oauth2-mock-server:
// its /authorize answers at once with a code, as if the person had already consented). The identity
// it reports is whatever the test sets with `signInAs`.

import { OAuth2Server } from 'oauth2-mock-server';

export interface OidcIdentity {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface OidcStandIn {
  /** The issuer, e.g. http://127.0.0.1:41234 (endpoints /authorize, /token, /userinfo, /jwks). */
  issuer: string;
  /** Who the next sign-ins are (in the id token, the access token and the userinfo reply). */
  signInAs(identity: OidcIdentity): void;
  /** Authorization requests seen (their query parameters), to check state and PKCE were sent. */
  authorizeRequests: URLSearchParams[];
  stop(): Promise<void>;
}

export async function startOidcStandIn(): Promise<OidcStandIn> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  let identity: OidcIdentity = {
    sub: 'stand-in-0',
    email: 'nobody@example.com',
    email_verified: true,
    name: 'Nobody',
  };
  const authorizeRequests: URLSearchParams[] = [];
  server.service.on('beforeAuthorizeRedirect', (_redirect: unknown, req: { url?: string }) => {
    authorizeRequests.push(new URL(req.url ?? '/', 'http://stand-in').searchParams);
  });
  server.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
    Object.assign(token.payload, identity);
  });
  server.service.on('beforeUserinfo', (response: { body: unknown; statusCode: number }) => {
    response.body = { ...identity };
  });
  return {
    issuer: server.issuer.url!,
    signInAs(next) {
      identity = next;
    },
    authorizeRequests,
    stop: () => server.stop(),
  };
}
