import type { paths } from '../../generated/api';

/** The job statuses: server/jobs/job-states.ts, carried by the OpenAPI `status` enum into the generated types. */
type JobStatus =
  paths['/api/jobs/{id}']['get']['responses'][200]['content']['application/json']['data']['job']['status'];

type Tone = 'ongoing' | 'completed' | 'failed' | 'stopped';

// Every status needs a tone: a status added on the server fails the typecheck here until it has one.
const TONES: Record<JobStatus, Tone> = {
  queued: 'ongoing',
  running: 'ongoing',
  Completed: 'completed',
  Failed: 'failed',
  'Manual Stop': 'stopped',
};

/** The spec's output status badge: Completed green, Failed red, Manual Stop blue, anything else Ongoing. */
export function StatusBadge({ status }: { status: JobStatus }) {
  const tone = TONES[status];
  return (
    <span className={`status-badge ${tone}`} data-testid="job-status" data-status={status}>
      {tone === 'ongoing' && <span className="spinner" aria-hidden="true" />}
      {tone === 'ongoing' ? `Ongoing (${status})` : status}
    </span>
  );
}
