import type { paths } from '../../../../generated/api';
import { ApiError, apiFetch, authHeaders, messageOf } from '../../../api/client';

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

/**
 * Follows a job's server-sent events with the bearer token in a header (EventSource cannot send
 * one, and a token in the URL would end up in logs). Resolves when the stream ends.
 */
export async function followJobEvents(
  id: number,
  /** The last sequence number already seen; -1 for all events. */
  afterSeq: number,
  onEvent: (event: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const query = afterSeq >= 0 ? `?after=${afterSeq}` : '';
  const response = await fetch(`/api/jobs/${id}/events${query}`, {
    headers: authHeaders(),
    signal,
  });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => null);
    throw new ApiError(messageOf(body, response.status), response.status, body);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      if (data) onEvent(JSON.parse(data) as JobEvent);
    }
  }
}
