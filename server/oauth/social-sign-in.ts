import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthService } from '../auth/auth-service';
import { signInRefusal, type SignInRefusal } from '../auth/sign-in-gate';
import type { Database } from '../db/database';
import { OAuthIdentitiesRepository } from './oauth-identities-repository';
import type { OAuthProvider, ProviderId } from './oauth-providers';
import { OAuthStatesRepository } from './oauth-states-repository';

/** How long a person may take at the provider between authorize and callback. */
export const STATE_TTL_SECONDS = 600;

/** Why a social sign-in ended without a token (sent to the front end as `?error=`). */
export type SocialSignInError =
  'invalid_state' | 'access_denied' | 'provider_error' | 'email_not_verified' | SignInRefusal['code'];

/** Where the browser goes after the callback: the front end's page with a token or an error. */
export type CallbackOutcome = { location: string };

/**
 * Social sign-in with the OAuth 2.0 authorization-code flow (arctic's generic client, so every
 * endpoint comes from configuration): state against forgery, bound to the browser by a cookie the
 * routes set; PKCE where the provider supports it; the provider's verified address creates or links
 * the account, which then passes the same gate as a password sign-in.
 */
export class SocialSignIn {
  private readonly states: OAuthStatesRepository;
  private readonly identities: OAuthIdentitiesRepository;
  private readonly publicUrl: URL;

  constructor(
    private readonly db: Database,
    private readonly auth: AuthService,
    private readonly providers: Map<ProviderId, OAuthProvider>,
    publicUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.states = new OAuthStatesRepository(db);
    this.identities = new OAuthIdentitiesRepository(db);
    this.publicUrl = new URL(publicUrl);
  }

  /** The providers offered (those with a client id), in a fixed order. */
  offered(): ProviderId[] {
    return [...this.providers.keys()];
  }

  provider(id: string): OAuthProvider | null {
    return this.providers.get(id as ProviderId) ?? null;
  }

  /** Cookies only over HTTPS when the product is reached over HTTPS. */
  get secureCookies(): boolean {
    return this.publicUrl.protocol === 'https:';
  }

  /** The front end's landing page for social sign-in. */
  get defaultRedirect(): string {
    return new URL('oauth2/redirect', this.base()).toString();
  }

  /**
   * Whether the browser may be sent back to this address: on PUBLIC_URL (same origin, under its
   * path), so the flow cannot hand a token to another site.
   */
  allowsRedirect(raw: string): boolean {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    const base = this.base();
    return (
      url.origin === base.origin &&
      url.username === '' &&
      url.password === '' &&
      url.pathname.startsWith(base.pathname)
    );
  }

  private base(): URL {
    const base = new URL(this.publicUrl);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    return base;
  }

  private client(provider: OAuthProvider): OAuth2Client {
    const callback = new URL(`api/oauth2/callback/${provider.id}`, this.base()).toString();
    return new OAuth2Client(provider.clientId, provider.clientSecret, callback);
  }

  /** Starts a sign-in: the provider's authorization URL and the state the browser must bring back. */
  async start(provider: OAuthProvider, redirectUri: string): Promise<{ url: string; state: string }> {
    const state = generateState();
    const codeVerifier = provider.pkce ? generateCodeVerifier() : '';
    const { authorization } = await provider.endpoints();
    const client = this.client(provider);
    const url = provider.pkce
      ? client.createAuthorizationURLWithPKCE(
          authorization,
          state,
          CodeChallengeMethod.S256,
          codeVerifier,
          provider.scopes,
        )
      : client.createAuthorizationURL(authorization, state, provider.scopes);
    await this.states.create({
      state,
      provider: provider.id,
      codeVerifier,
      redirectUri,
      ttlSeconds: STATE_TTL_SECONDS,
    });
    return { url: url.toString(), state };
  }

  /**
   * Finishes a sign-in. `browserState` is the state from the cookie set at the start: a callback
   * whose state another browser started (or that was already used, or expired) gets no token.
   */
  async finish(
    provider: OAuthProvider,
    query: { code?: string; state?: string; error?: string },
    browserState: string | null,
  ): Promise<CallbackOutcome> {
    if (!query.state || !browserState || query.state !== browserState) {
      return this.refuse(this.defaultRedirect, 'invalid_state');
    }
    const request = await this.states.take(query.state, provider.id);
    if (!request) return this.refuse(this.defaultRedirect, 'invalid_state');
    if (query.error || !query.code) {
      return this.refuse(
        request.redirectUri,
        query.error === 'access_denied' ? 'access_denied' : 'provider_error',
      );
    }
    let identity;
    try {
      const { token } = await provider.endpoints();
      const tokens = await this.client(provider).validateAuthorizationCode(
        token,
        query.code,
        provider.pkce ? request.codeVerifier : null,
      );
      identity = await provider.identity(tokens.accessToken());
    } catch (error) {
      // The provider's reply may quote the code; the log gets the kind of failure only.
      this.log.warn(
        { provider: provider.id, err: error instanceof Error ? error.name : 'error' },
        'social sign-in failed at the provider',
      );
      return this.refuse(request.redirectUri, 'provider_error');
    }
    if (!identity.email) return this.refuse(request.redirectUri, 'email_not_verified');
    const userId = await this.accountFor(provider.id, identity.subject, identity.email, identity.name);
    this.auth.forgetUser(userId);
    const user = await this.auth.users.findById(userId);
    if (!user) return this.refuse(request.redirectUri, 'provider_error');
    const refusal = signInRefusal(user);
    if (refusal) return this.refuse(request.redirectUri, refusal.code, refusal.email);
    const { accessToken } = await this.auth.startSession(user.id);
    return { location: withQuery(request.redirectUri, { token: accessToken }) };
  }

  /** The account this identity signs in to: linked before, linked now by its address, or new. */
  private accountFor(provider: ProviderId, subject: string, email: string, name: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      const linked = await this.identities.findUserId(provider, subject, tx);
      if (linked !== null) return linked;
      const existing = await this.identities.findAccountByEmail(tx, email);
      const userId = existing
        ? existing.id
        : await this.identities.createAccount(tx, { name: accountName(name, email), email });
      if (existing && !existing.emailVerified) await this.identities.adoptUnverifiedAccount(tx, existing.id);
      await this.identities.link(tx, { provider, subject, userId, email });
      return userId;
    });
  }

  /** Where the browser goes when sign-in cannot go on. */
  errorRedirect(redirectUri: string, error: SocialSignInError): string {
    return withQuery(redirectUri, { error });
  }

  private refuse(redirectUri: string, error: SocialSignInError, email?: string): CallbackOutcome {
    return { location: withQuery(redirectUri, email ? { error, email } : { error }) };
  }
}

function withQuery(address: string, params: Record<string, string>): string {
  const url = new URL(address);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * A user name that meets the profile's rule (2 to 50 letters, digits and underscores) from the
 * provider's name or login, else from the address.
 */
export function accountName(name: string, email: string): string {
  const clean = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 50);
  const fromName = clean(name);
  if (fromName.length >= 2) return fromName;
  const fromEmail = clean(email.split('@')[0] ?? '');
  return fromEmail.length >= 2 ? fromEmail : 'user';
}
