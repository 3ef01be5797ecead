import { apiFetch, setAccessToken } from '../../../api/client';

export interface CurrentUser {
  id: number;
  name: string;
  email: string;
  email_verified: boolean;
  is_approved: boolean;
  roles: string[];
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
