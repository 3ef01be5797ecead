import type { paths } from '../../../generated/api';
import { apiFetch } from '../../api/client';

type Registration = paths['/api/users']['post']['requestBody']['content']['application/json'];
type Reply = paths['/api/users']['post']['responses'][201]['content']['application/json'];

/** POST /api/users: creates the account and sends the verification mail (no role until approval). */
export async function register(values: Registration): Promise<Reply> {
  return apiFetch<Reply>('/users', { method: 'POST', body: JSON.stringify(values) });
}
