import type { AdminUser } from './list-users';
import { apiFetch } from '../../../api/client';

/** Replaces an account's roles (the server keeps the last admin's role). */
export async function setRoles(id: number, roles: string[]): Promise<{ message: string; user: AdminUser }> {
  const reply = await apiFetch<{ message: string; data: AdminUser }>(`/admin/users/${id}/roles`, {
    method: 'PUT',
    body: JSON.stringify({ roles }),
  });
  return { message: reply.message, user: reply.data };
}
