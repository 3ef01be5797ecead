import { apiFetch } from '../../../api/client';

export interface ApprovalStatus {
  email_verified: boolean;
  is_approved: boolean;
}

/** GET /api/users/approval-status: the same shape for unknown e-mails (false, false). */
export async function getApprovalStatus(email: string): Promise<ApprovalStatus> {
  const query = new URLSearchParams({ email });
  return (await apiFetch<{ extra_data: ApprovalStatus }>(`/users/approval-status?${query}`)).extra_data;
}
