import type { paths } from '../../../generated/api';
import { apiFetch } from '../../api/client';

type Reply = paths['/api/oauth2/providers']['get']['responses'][200]['content']['application/json'];
export type OAuthProvider = Reply['data']['providers'][number];

/** GET /api/oauth2/providers: only the providers the server has client ids for. */
export async function getOAuthProviders(): Promise<OAuthProvider[]> {
  return (await apiFetch<Reply>('/oauth2/providers')).data.providers;
}

/** Where the browser goes to start a social sign-in; the server sends it back to /oauth2/redirect. */
export function authorizeUrl(provider: OAuthProvider, origin = window.location.origin): string {
  const back = encodeURIComponent(`${origin}/oauth2/redirect`);
  return `/api/oauth2/authorize/${provider}?redirect_uri=${back}`;
}
