import type { paths } from '../../../../generated/api';
import { apiFetch, setAccessToken } from '../../../api/client';

/** GET /api/users/me: the signed-in account (whether a provider token is stored, never the token). */
export type CurrentUser =
  paths['/api/users/me']['get']['responses'][200]['content']['application/json']['data'];

export async function getCurrentUser(): Promise<CurrentUser> {
  return (await apiFetch<{ data: CurrentUser }>('/users/me')).data;
}

export async function logout(): Promise<void> {
  try {
    await apiFetch('/logout', { method: 'POST' });
  } finally {
    setAccessToken(null);
  }
}
