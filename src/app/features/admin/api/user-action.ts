import type { AdminUser } from './list-users';
import { apiFetch } from '../../../api/client';

export type UserAction = 'approve' | 'reject' | 'verify-email' | 'send-verification' | 'disable' | 'enable';

/** One admin decision on an account; resolves with the server's message and the account after it. */
export async function runUserAction(
  id: number,
  action: UserAction,
): Promise<{ message: string; user: AdminUser }> {
  const reply = await apiFetch<{ message: string; data: AdminUser }>(`/admin/users/${id}/${action}`, {
    method: 'POST',
  });
  return { message: reply.message, user: reply.data };
}
