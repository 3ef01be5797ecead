import type { paths } from '../../../../generated/api';
import { apiFetch } from '../../../api/client';

type Put = paths['/api/users/{id}']['put'];
/** The body of PUT /api/users/{id}; the password trio is sent only when all three are filled. */
export type ProfileUpdate = Put['requestBody']['content']['application/json'];
export type ProfileUpdateReply = Put['responses'][200]['content']['application/json'];

/** PUT /api/users/{id}: the owner (or an admin) changes the profile; the reply's message is the toast. */
export async function updateProfile(id: number, update: ProfileUpdate): Promise<ProfileUpdateReply> {
  return apiFetch<ProfileUpdateReply>(`/users/${id}`, { method: 'PUT', body: JSON.stringify(update) });
}
