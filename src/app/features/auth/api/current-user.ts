import { apiFetch, setAccessToken } from '../../../api/client';

/** GET /api/users/me: the signed-in account (whether a provider token is stored, never the token). */
export interface CurrentUser {
  id: number;
  name: string;
  email: string;
  email_verified: boolean;
  is_approved: boolean;
  roles: string[];
  dob?: string | null;
  image_url?: string | null;
  provided_timezone?: string | null;
  has_custom_ibmq_token?: boolean;
}

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
