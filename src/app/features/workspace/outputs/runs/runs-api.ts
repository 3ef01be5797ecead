import type { paths } from '../../../../../generated/api';
import { apiFetch } from '../../../../api/client';

/** GET /application-outputs/{applicationId}/runs: the application's outputs as a run table. */
export type RunTableData =
  paths['/api/application-outputs/{applicationId}/runs']['get']['responses'][200]['content']['application/json']['data'];

export async function getRunTable(applicationId: number, signal?: AbortSignal): Promise<RunTableData> {
  const reply = await apiFetch<{ data: RunTableData }>(
    `/application-outputs/${applicationId}/runs`,
    signal ? { signal } : {},
  );
  return reply.data;
}
