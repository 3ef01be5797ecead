import type { Config } from '../config';

export const PROVIDER_IDS = ['google', 'github'] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

/** Who the provider says signed in. Only an address the provider has verified is reported. */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  /** A name for a new account (the provider's display name or login). */
  name: string;
}

export interface ProviderEndpoints {
  authorization: string;
  token: string;
}

/** One social sign-in provider: where its endpoints are, and how to ask it who signed in. */
export interface OAuthProvider {
  id: ProviderId;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  /** PKCE (RFC 7636, S256) where the provider supports it. */
  pkce: boolean;
  endpoints(): Promise<ProviderEndpoints>;
  identity(accessToken: string): Promise<ProviderIdentity>;
}

const TIMEOUT_MS = 10_000;

async function getJson(url: string, accessToken: string): Promise<unknown> {
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/json',
      'user-agent': 'qml-studio',
    },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
const textField = (value: unknown, key: string): string | null => {
  const found = field(value, key);
  return typeof found === 'string' && found !== '' ? found : null;
};

/**
 * Google through OpenID Connect: the issuer's discovery document names the endpoints (read once),
 * the userinfo endpoint says who signed in and whether the address is verified.
 */
function google(config: Config, clientId: string, clientSecret: string): OAuthProvider {
  let discovery: Promise<{ authorization: string; token: string; userinfo: string }> | null = null;
  const discover = () => {
    discovery ??= (async () => {
      const issuer = config.googleIssuerUrl.replace(/\/+$/, '');
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`OpenID discovery at ${issuer} answered ${response.status}`);
      const document: unknown = await response.json();
      const authorization = textField(document, 'authorization_endpoint');
      const token = textField(document, 'token_endpoint');
      const userinfo = textField(document, 'userinfo_endpoint');
      if (!authorization || !token || !userinfo)
        throw new Error(`OpenID discovery at ${issuer} lacks endpoints`);
      return { authorization, token, userinfo };
    })().catch((error: unknown) => {
      discovery = null; // ask again next time
      throw error;
    });
    return discovery;
  };
  return {
    id: 'google',
    clientId,
    clientSecret,
    scopes: ['openid', 'email', 'profile'],
    pkce: true,
    endpoints: discover,
    async identity(accessToken) {
      const info = await getJson((await discover()).userinfo, accessToken);
      const subject = textField(info, 'sub');
      if (!subject) throw new Error('userinfo without sub');
      const verified = field(info, 'email_verified') === true || field(info, 'email_verified') === 'true';
      const email = verified ? textField(info, 'email') : null;
      return { subject, email, name: textField(info, 'name') ?? textField(info, 'given_name') ?? '' };
    },
  };
}

/** GitHub's OAuth apps: the user from /user, the primary verified address from /user/emails. */
function github(config: Config, clientId: string, clientSecret: string): OAuthProvider {
  const site = config.githubUrl.replace(/\/+$/, '');
  const api = config.githubApiUrl.replace(/\/+$/, '');
  return {
    id: 'github',
    clientId,
    clientSecret,
    scopes: ['read:user', 'user:email'],
    pkce: false,
    endpoints: async () => ({
      authorization: `${site}/login/oauth/authorize`,
      token: `${site}/login/oauth/access_token`,
    }),
    async identity(accessToken) {
      const user = await getJson(`${api}/user`, accessToken);
      const id = field(user, 'id');
      if (typeof id !== 'number' && typeof id !== 'string') throw new Error('GitHub user without id');
      const emails = await getJson(`${api}/user/emails`, accessToken);
      const list = Array.isArray(emails) ? (emails as unknown[]) : [];
      const verified = list.filter((entry) => field(entry, 'verified') === true);
      const chosen = verified.find((entry) => field(entry, 'primary') === true) ?? verified[0];
      return {
        subject: String(id),
        email: chosen ? textField(chosen, 'email') : null,
        name: textField(user, 'login') ?? textField(user, 'name') ?? '',
      };
    },
  };
}

/** The providers this deployment offers: those whose client id and secret are set. */
export function configuredProviders(config: Config): Map<ProviderId, OAuthProvider> {
  const providers = new Map<ProviderId, OAuthProvider>();
  if (config.googleClientId && config.googleClientSecret)
    providers.set('google', google(config, config.googleClientId, config.googleClientSecret));
  if (config.githubClientId && config.githubClientSecret)
    providers.set('github', github(config, config.githubClientId, config.githubClientSecret));
  return providers;
}
