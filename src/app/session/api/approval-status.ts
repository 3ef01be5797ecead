import type { paths } from '../../../generated/api';
import { apiFetch } from '../../api/client';

type Reply = paths['/api/users/approval-status']['get']['responses'][200]['content']['application/json'];
export type ApprovalStatus = Reply['extra_data'];

/** GET /api/users/approval-status: the same shape for unknown e-mails (false, false). */
export async function getApprovalStatus(email: string): Promise<ApprovalStatus> {
  const query = new URLSearchParams({ email });
  return (await apiFetch<Reply>(`/users/approval-status?${query}`)).extra_data;
}
