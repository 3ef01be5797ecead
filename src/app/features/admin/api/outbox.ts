import type { paths } from '../../../../generated/api';
import { apiFetch } from '../../../api/client';

export type Outbox =
  paths['/api/admin/outbox']['get']['responses'][200]['content']['application/json']['data'];
export type OutboxMail = Outbox['messages'][number];

/** The mail the embedded default kept (newest first); `mode` is `smtp` when mail is really sent. */
export async function getOutbox(): Promise<Outbox> {
  return (await apiFetch<{ data: Outbox }>('/admin/outbox')).data;
}
