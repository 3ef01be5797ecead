import { apiFetch } from '../../../api/client';

/** POST /api/users/resend-verification: the same reply whether or not the account exists. */
export async function resendVerification(email: string): Promise<{ message?: string }> {
  return apiFetch<{ message?: string }>('/users/resend-verification', {
    method: 'POST',
    body: JSON.stringify({ email }),
  });
}
