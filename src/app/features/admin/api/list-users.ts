import type { paths } from '../../../../generated/api';
import { apiFetch } from '../../../api/client';

type UsersPage = paths['/api/admin/users']['get']['responses'][200]['content']['application/json']['data'];

export type AdminUser = UsersPage['users'][number];
/** The console's account groups, from the server's list through the OpenAPI `status` enum. */
export type AccountStatus = AdminUser['status'];

/** The accounts of one group (all when no status), and the role names an admin can assign. */
export async function listUsers(status: AccountStatus | null): Promise<UsersPage> {
  const query = status ? `?status=${encodeURIComponent(status)}` : '';
  return (await apiFetch<{ data: UsersPage }>(`/admin/users${query}`)).data;
}
