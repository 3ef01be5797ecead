import { apiFetch } from '../../../api/client';
import type { CurrentUser } from '../../auth/api/current-user';

/** The body of PUT /api/users/{id}; the password trio is sent only when all three are filled. */
export interface ProfileUpdate {
  name?: string;
  dob?: string;
  image_url?: string | null;
  custom_ibmq_token?: string | null;
  provided_timezone?: string;
  old_password?: string;
  new_password?: string;
  confirm_new_password?: string;
}

export interface ProfileUpdateReply {
  success: boolean;
  message?: string;
  data?: CurrentUser;
}

/** PUT /api/users/{id}: the owner (or an admin) changes the profile; the reply's message is the toast. */
export async function updateProfile(id: number, update: ProfileUpdate): Promise<ProfileUpdateReply> {
  return apiFetch<ProfileUpdateReply>(`/users/${id}`, { method: 'PUT', body: JSON.stringify(update) });
}
