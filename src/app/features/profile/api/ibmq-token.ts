import { apiFetch } from '../../../api/client';

/** GET /api/users/{id}/ibmq-token: the stored quantum-provider token, for its owner's own edit form only. */
export async function getIbmqToken(id: number): Promise<string | null> {
  return (await apiFetch<{ data: { custom_ibmq_token: string | null } }>(`/users/${id}/ibmq-token`)).data
    .custom_ibmq_token;
}
