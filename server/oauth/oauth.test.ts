import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import {
  startGitHubStandIn,
  startOidcStandIn,
  type GitHubStandIn,
  type OidcStandIn,
} from '../test-support/oauth-stand-ins';
import { configuredProviders } from './oauth-providers';
import { startRules } from './oauth-routes';
import { accountName } from './social-sign-in';

const PUBLIC_URL = 'http://localhost:8080';
const FRONT_END = `${PUBLIC_URL}/oauth2/redirect`;

describe('social sign-in configuration', () => {
  it('offers only providers whose client id and secret are set', () => {
    expect([...configuredProviders(loadConfig({})).keys()]).toEqual([]);
    const both = loadConfig({
      GOOGLE_CLIENT_ID: 'g',
      GOOGLE_CLIENT_SECRET: 'gs',
      GITHUB_CLIENT_ID: 'h',
      GITHUB_CLIENT_SECRET: 'hs',
    });
    expect([...configuredProviders(both).keys()]).toEqual(['google', 'github']);
  });

  it("makes a user name that meets the profile's rule", () => {
    expect(accountName('Ada Lovelace', 'ada@example.com')).toBe('Ada_Lovelace');
    expect(accountName('octo-cat', 'x@example.com')).toBe('octo_cat');
    expect(accountName('李', 'li.wei@example.com')).toBe('li_wei');
    expect(accountName('', '@example.com')).toBe('user');
  });
});

describe.each(MODES.filter((m) => m.queue === 'in-process'))('social sign-in on $database', (mode) => {
  let stack: TestStack;
  let github: GitHubStandIn;
  let google: OidcStandIn;
  beforeAll(async () => {
    if (!mode.available) return;
    github = await startGitHubStandIn();
    google = await startOidcStandIn();
    stack = await startStack(mode, {
      PUBLIC_URL,
      GITHUB_CLIENT_ID: github.clientId,
      GITHUB_CLIENT_SECRET: github.clientSecret,
      GITHUB_URL: github.url,
      GITHUB_API_URL: github.apiUrl,
      GOOGLE_CLIENT_ID: 'google-client',
      GOOGLE_CLIENT_SECRET: 'google-secret',
      GOOGLE_ISSUER_URL: google.issuer,
    });
  });
  afterAll(async () => {
    await stack?.close();
    await github?.stop();
    await google?.stop();
  });

  /** Starts at /authorize, follows the provider's consent, returns the callback and the cookie. */
  async function toCallback(provider: string, redirectUri = FRONT_END) {
    const start = await stack.app.inject({
      url: `/api/oauth2/authorize/${provider}?redirect_uri=${encodeURIComponent(redirectUri)}`,
    });
    expect(start.statusCode, start.body).toBe(302);
    const cookie = String(start.headers['set-cookie']).split(';')[0]!;
    expect(String(start.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);
    const atProvider = await fetch(String(start.headers.location), { redirect: 'manual' });
    expect(atProvider.status).toBe(302);
    const callback = new URL(atProvider.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(`${PUBLIC_URL}/api/oauth2/callback/${provider}`);
    return { path: callback.pathname + callback.search, cookie, state: callback.searchParams.get('state')! };
  }

  async function signIn(provider: string, redirectUri = FRONT_END) {
    const { path, cookie } = await toCallback(provider, redirectUri);
    const done = await stack.app.inject({ url: path, headers: { cookie } });
    expect(done.statusCode).toBe(302);
    return new URL(String(done.headers.location));
  }

  const approve = (email: string) =>
    stack.services.db.query(
      `with u as (update users set is_approved = true where email = $1 returning id)
       insert into user_roles (user_id, role_id) select u.id, r.id from u, roles r where r.name = 'user'`,
      [email],
    );

  it.skipIf(!mode.available)('lists the configured providers', async () => {
    const reply = await stack.app.inject({ url: '/api/oauth2/providers' });
    expect(reply.json()).toEqual({ success: true, data: { providers: ['google', 'github'] } });
  });

  it.skipIf(!mode.available)(
    'creates a verified, unapproved account from GitHub, then signs it in once approved',
    async () => {
      github.signInAs({ id: 4242, login: 'ada-l', name: 'Ada', email: 'ada@example.com', verified: true });
      const first = await signIn('github');
      expect(first.origin + first.pathname).toBe(FRONT_END);
      expect(Object.fromEntries(first.searchParams)).toEqual({
        error: 'not_approved',
        email: 'ada@example.com',
      });
      const { rows } = await stack.services.db.query<{
        name: string;
        email_verified: boolean;
        is_approved: boolean;
      }>(`select name, email_verified, is_approved from users where email = 'ada@example.com'`);
      expect(rows).toEqual([{ name: 'ada_l', email_verified: true, is_approved: false }]);

      await approve('ada@example.com');
      const second = await signIn('github');
      const token = second.searchParams.get('token');
      expect(token).toBeTruthy();
      const me = await stack.app.inject({ url: '/api/users/me', headers: bearer(token!) });
      expect(me.json()).toMatchObject({ data: { email: 'ada@example.com', roles: ['user'] } });
      const { rows: identities } = await stack.services.db.query(
        `select provider, subject, email from oauth_identities where provider = 'github'`,
      );
      expect(identities).toEqual([{ provider: 'github', subject: '4242', email: 'ada@example.com' }]);
    },
  );

  it.skipIf(!mode.available)(
    'uses PKCE with Google and links an existing account by its verified address',
    async () => {
      await stack.userToken('grace@example.com');
      google.signInAs({ sub: 'g-1', email: 'Grace@Example.com', email_verified: true, name: 'Grace Hopper' });
      const landed = await signIn('google');
      expect(landed.searchParams.get('token')).toBeTruthy();
      const request = google.authorizeRequests.at(-1)!;
      expect(request.get('code_challenge_method')).toBe('S256');
      expect(request.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(request.get('scope')).toBe('openid email profile');
      const { rows } = await stack.services.db.query<{ count: number }>(
        `select count(*)::int as count from users where lower(email) = 'grace@example.com'`,
      );
      expect(rows[0]!.count).toBe(1);
    },
  );

  it.skipIf(!mode.available)(
    'takes away the password of an unverified account it adopts (someone else may have set it)',
    async () => {
      await stack.services.db.query(
        `insert into users (name, email, password_hash, email_verified) values ('squatter', 'linus@example.com', 'x', false)`,
      );
      google.signInAs({ sub: 'g-2', email: 'linus@example.com', email_verified: true, name: 'Linus' });
      const landed = await signIn('google');
      expect(landed.searchParams.get('error')).toBe('not_approved');
      const { rows } = await stack.services.db.query(
        `select password_hash, email_verified from users where email = 'linus@example.com'`,
      );
      expect(rows).toEqual([{ password_hash: null, email_verified: true }]);
    },
  );

  it.skipIf(!mode.available)('lets no disabled account in through a provider', async () => {
    await stack.userToken('closed@example.com');
    await stack.services.db.query(`update users set disabled_at = now() where email = 'closed@example.com'`);
    github.signInAs({ id: 31337, login: 'closed', name: 'C', email: 'closed@example.com', verified: true });
    const landed = await signIn('github');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ error: 'disabled' });
  });

  it.skipIf(!mode.available)('refuses an address the provider has not verified', async () => {
    github.signInAs({ id: 77, login: 'mallory', name: 'M', email: 'victim@example.com', verified: false });
    google.signInAs({ sub: 'g-3', email: 'victim@example.com', email_verified: false, name: 'M' });
    for (const provider of ['github', 'google']) {
      const landed = await signIn(provider);
      expect(landed.searchParams.get('error'), provider).toBe('email_not_verified');
      expect(landed.searchParams.get('token')).toBeNull();
    }
    const { rows } = await stack.services.db.query(`select id from users where email = 'victim@example.com'`);
    expect(rows).toEqual([]);
  });

  it.skipIf(!mode.available)(
    'refuses a callback whose state this browser did not start, or that was used or expired',
    async () => {
      github.signInAs({ id: 5, login: 'admin-ish', name: 'A', email: 'admin@example.com', verified: true });
      const invalid = (location: unknown) => {
        const url = new URL(String(location));
        expect(url.origin + url.pathname).toBe(FRONT_END);
        expect(Object.fromEntries(url.searchParams)).toEqual({ error: 'invalid_state' });
      };
      // No cookie (another browser's link), or another sign-in's cookie.
      const stolen = await toCallback('github');
      invalid((await stack.app.inject({ url: stolen.path })).headers.location);
      const other = await toCallback('github');
      invalid(
        (await stack.app.inject({ url: stolen.path, headers: { cookie: other.cookie } })).headers.location,
      );
      // A state edited in the address, with a cookie to match.
      const forged = stolen.path.replace(/state=[^&]+/, 'state=forged');
      invalid(
        (await stack.app.inject({ url: forged, headers: { cookie: 'qml_oauth_state=forged' } })).headers
          .location,
      );
      // Used once, then replayed.
      const used = await stack.app.inject({ url: other.path, headers: { cookie: other.cookie } });
      expect(new URL(String(used.headers.location)).searchParams.get('token')).toBeTruthy();
      invalid(
        (await stack.app.inject({ url: other.path, headers: { cookie: other.cookie } })).headers.location,
      );
      // Expired.
      const late = await toCallback('github');
      await stack.services.db.query(
        `update oauth_states set expires_at = now() - interval '1 second' where state = $1`,
        [late.state],
      );
      invalid(
        (await stack.app.inject({ url: late.path, headers: { cookie: late.cookie } })).headers.location,
      );
    },
  );

  it.skipIf(!mode.available)('sends the browser back only to this site', async () => {
    const before = await stack.services.db.query<{ count: number }>(
      `select count(*)::int as count from oauth_states`,
    );
    for (const target of [
      'https://evil.example/oauth2/redirect',
      'http://localhost:8080.evil.example/oauth2/redirect',
      'http://localhost:8081/oauth2/redirect',
      'https://localhost:8080/oauth2/redirect',
      'http://user@localhost:8080/oauth2/redirect',
      '//evil.example/x',
      'javascript:alert(1)',
    ]) {
      const reply = await stack.app.inject({
        url: `/api/oauth2/authorize/github?redirect_uri=${encodeURIComponent(target)}`,
      });
      expect(reply.statusCode, target).toBe(400);
      expect(reply.json()).toMatchObject({ success: false, errors: [{ field: '/redirect_uri' }] });
      expect(reply.headers.location).toBeUndefined();
    }
    const after = await stack.services.db.query<{ count: number }>(
      `select count(*)::int as count from oauth_states`,
    );
    expect(after.rows[0]!.count).toBe(before.rows[0]!.count);
    // Another page of this site is fine; the token goes there.
    const elsewhere = await signIn('github', `${PUBLIC_URL}/somewhere?keep=1`);
    expect(elsewhere.pathname).toBe('/somewhere');
    expect(elsewhere.searchParams.get('keep')).toBe('1');
  });

  it.skipIf(!mode.available)('limits how many sign-ins one address starts, with Retry-After', async () => {
    const rules = startRules('203.0.113.9');
    for (let i = 0; i < rules[0]!.max; i++) await stack.services.rateLimiter.record(rules);
    const reply = await stack.app.inject({
      url: '/api/oauth2/authorize/github',
      remoteAddress: '203.0.113.9',
    });
    expect(reply.statusCode).toBe(429);
    expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
    const other = await stack.app.inject({
      url: '/api/oauth2/authorize/github',
      remoteAddress: '203.0.113.10',
    });
    expect(other.statusCode).toBe(302);
  });

  it.skipIf(!mode.available)("passes on the provider's refusal and knows only its providers", async () => {
    const { path, cookie } = await toCallback('github');
    const denied = path.replace(/code=[^&]+/, 'error=access_denied');
    const reply = await stack.app.inject({ url: denied, headers: { cookie } });
    expect(Object.fromEntries(new URL(String(reply.headers.location)).searchParams)).toEqual({
      error: 'access_denied',
    });
    for (const url of ['/api/oauth2/authorize/facebook', '/api/oauth2/callback/facebook?code=x&state=y']) {
      expect((await stack.app.inject({ url })).statusCode, url).toBe(404);
    }
  });
});

describe('social sign-in when the provider does not answer', () => {
  it('sends the browser back with ?error=provider_error instead of failing', async () => {
    const stack = await startStack(
      { database: 'pglite', queue: 'in-process' },
      {
        PUBLIC_URL,
        GOOGLE_CLIENT_ID: 'google-client',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GOOGLE_ISSUER_URL: 'http://127.0.0.1:9', // the discard port: nothing listens
      },
    );
    try {
      const reply = await stack.app.inject({ url: '/api/oauth2/authorize/google' });
      expect(reply.statusCode).toBe(302);
      expect(reply.headers.location).toBe(`${FRONT_END}?error=provider_error`);
      expect(reply.headers['set-cookie']).toBeUndefined();
    } finally {
      await stack.close();
    }
  });
});
