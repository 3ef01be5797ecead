import type { paths } from '../../generated/api';
import { apiFetch } from './client';
import { followEventStream } from './event-stream';

type JobDetail = paths['/api/jobs/{id}']['get']['responses'][200]['content']['application/json']['data'];

export type Job = JobDetail['job'];
export type JobEvent = JobDetail['events'][number];
/** The job statuses, from the server's list through the OpenAPI `status` enum. */
export type JobStatus = Job['status'];

export async function startSelfTest(shots: number): Promise<Job> {
  return (
    await apiFetch<{ data: Job }>('/diagnostics/self-test', {
      method: 'POST',
      body: JSON.stringify({ shots }),
    })
  ).data;
}

export async function getJob(id: number): Promise<{ job: Job; events: JobEvent[] }> {
  return (await apiFetch<{ data: { job: Job; events: JobEvent[] } }>(`/jobs/${id}`)).data;
}

export async function stopJob(id: number): Promise<void> {
  await apiFetch(`/jobs/${id}/stop`, { method: 'POST' });
}

/** Follows a job's server-sent events (the shared stream reader). Resolves when the stream ends. */
export async function followJobEvents(
  id: number,
  /** The last sequence number already seen; -1 for all events. */
  afterSeq: number,
  onEvent: (event: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const query = afterSeq >= 0 ? `?after=${afterSeq}` : '';
  await followEventStream<JobEvent>(`/jobs/${id}/events${query}`, onEvent, signal);
}
