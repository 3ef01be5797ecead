import type { paths } from '../../../../generated/api';
import { apiFetch } from '../../../api/client';

type Reply = paths['/api/users/{id}/ibmq-token']['get']['responses'][200]['content']['application/json'];

/** GET /api/users/{id}/ibmq-token: the stored quantum-provider token, for its owner's own edit form only. */
export async function getIbmqToken(id: number): Promise<string | null> {
  return (await apiFetch<Reply>(`/users/${id}/ibmq-token`)).data.custom_ibmq_token;
}
