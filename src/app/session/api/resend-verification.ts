import type { paths } from '../../../generated/api';
import { apiFetch } from '../../api/client';

type Resend = paths['/api/users/resend-verification']['post'];
type Reply = Resend['responses'][200]['content']['application/json'];

/** POST /api/users/resend-verification: the same reply whether or not the account exists. */
export async function resendVerification(email: string): Promise<Reply> {
  const body: Resend['requestBody']['content']['application/json'] = { email };
  return apiFetch<Reply>('/users/resend-verification', { method: 'POST', body: JSON.stringify(body) });
}
