import { apiFetch } from '../../../api/client';

export interface Registration {
  name: string;
  email: string;
  password: string;
}

/** POST /api/users: creates the account and sends the verification mail (no role until approval). */
export async function register(values: Registration): Promise<{ message?: string }> {
  return apiFetch<{ message?: string }>('/users', { method: 'POST', body: JSON.stringify(values) });
}
