import type { paths } from '../../../generated/api';
import { apiFetch, ApiError, setAccessToken } from '../../api/client';

/** GET /api/users/me: the signed-in account (whether a provider token is stored, never the token). */
export type CurrentUser =
  paths['/api/users/me']['get']['responses'][200]['content']['application/json']['data'];

/** Spec section 8's text for a failed lookup, ahead of the server's detail. */
export const CURRENT_USER_FAILED = 'Get current user failed';

export async function getCurrentUser(): Promise<CurrentUser> {
  try {
    return (await apiFetch<{ data: CurrentUser }>('/users/me')).data;
  } catch (error) {
    const status = error instanceof ApiError ? error.status : 0;
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw new ApiError(
      `${CURRENT_USER_FAILED}${detail}`,
      status,
      error instanceof ApiError ? error.body : null,
    );
  }
}

export async function logout(): Promise<void> {
  try {
    await apiFetch('/logout', { method: 'POST' });
  } finally {
    setAccessToken(null);
  }
}
