// Local stand-ins for the social sign-in providers, for server and end-to-end tests: a GitHub-type
// OAuth 2.0 server (authorize, token, /user, /user/emails) and a Google-type OpenID Connect issuer
// (oauth2-mock-server). Both consent at once: /authorize redirects straight back with a code.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';

export interface GitHubIdentity {
  id: number;
  login: string;
  name: string;
  email: string;
  verified: boolean;
}

export interface GitHubStandIn {
  /** Set as GITHUB_URL (serves /login/oauth/authorize and /login/oauth/access_token). */
  url: string;
  /** Set as GITHUB_API_URL (serves /user and /user/emails). */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-ins are. */
  signInAs(identity: GitHubIdentity): void;
  /** Query parameters of each authorization request seen. */
  authorizeRequests: URLSearchParams[];
  stop(): Promise<void>;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const clientId = 'github-stand-in-client';
  const clientSecret = 'github-stand-in-secret';
  let identity: GitHubIdentity = {
    id: 1,
    login: 'octo',
    name: 'Octo Cat',
    email: 'octo@example.com',
    verified: true,
  };
  const codes = new Map<string, { redirectUri: string | null; identity: GitHubIdentity }>();
  const tokens = new Map<string, GitHubIdentity>();
  const authorizeRequests: URLSearchParams[] = [];

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (request.method === 'GET' && url.pathname === '/login/oauth/authorize') {
        authorizeRequests.push(url.searchParams);
        const redirect = url.searchParams.get('redirect_uri');
        if (url.searchParams.get('client_id') !== clientId || !redirect)
          return json(response, 400, { error: 'bad client' });
        const code = randomBytes(10).toString('hex');
        codes.set(code, { redirectUri: redirect, identity });
        const back = new URL(redirect);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        response.writeHead(302, { location: back.toString() });
        return response.end();
      }
      if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
        if (request.headers.authorization !== expected)
          return json(response, 401, { error: 'invalid_client' });
        const form = new URLSearchParams(await readBody(request));
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!grant || grant.redirectUri !== form.get('redirect_uri'))
          return json(response, 400, { error: 'invalid_grant' });
        const token = randomBytes(16).toString('hex');
        tokens.set(token, grant.identity);
        return json(response, 200, {
          access_token: token,
          token_type: 'bearer',
          scope: 'read:user,user:email',
        });
      }
      const who = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (request.method === 'GET' && url.pathname === '/api/user') {
        if (!who) return json(response, 401, { message: 'Bad credentials' });
        return json(response, 200, { id: who.id, login: who.login, name: who.name, email: null });
      }
      if (request.method === 'GET' && url.pathname === '/api/user/emails') {
        if (!who) return json(response, 401, { message: 'Bad credentials' });
        return json(response, 200, [
          { email: who.email, primary: true, verified: who.verified, visibility: 'private' },
        ]);
      }
      return json(response, 404, { message: 'Not Found' });
    })().catch(() => json(response, 500, { message: 'stand-in failed' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiUrl: `${url}/api`,
    clientId,
    clientSecret,
    signInAs(next) {
      identity = next;
    },
    authorizeRequests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface OidcIdentity {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface OidcStandIn {
  /** Set as GOOGLE_ISSUER_URL (discovery, /authorize, /token, /userinfo, /jwks). */
  issuer: string;
  signInAs(identity: OidcIdentity): void;
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
