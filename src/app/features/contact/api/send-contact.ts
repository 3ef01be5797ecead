import type { paths } from '../../../../generated/api';
import { apiFetch } from '../../../api/client';

export type ContactMessage = paths['/api/contact']['post']['requestBody']['content']['application/json'];
type Reply = paths['/api/contact']['post']['responses'][200]['content']['application/json'];

/** POST /api/contact: the signed-in user's message, kept and mailed to the admins. */
export async function sendContact(message: ContactMessage): Promise<Reply> {
  return apiFetch<Reply>('/contact', { method: 'POST', body: JSON.stringify(message) });
}
