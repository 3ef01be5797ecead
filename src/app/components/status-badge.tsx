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

const toneOf = (status: string): Tone =>
  Object.prototype.hasOwnProperty.call(TONES, status) ? TONES[status as JobStatus] : 'ongoing';

/**
 * The spec's output status badge (section 4): Completed green, Failed red, Manual Stop blue, any other
 * value 'Ongoing' yellow with a spinner. The spec's word is 'Ongoing'; the phase behind it (queued,
 * running) stays visible as a smaller note inside the badge, since a long queue is worth knowing about.
 */
export function StatusBadge({ status }: { status: string }) {
  const tone = toneOf(status);
  return (
    <span className={`status-badge ${tone}`} data-testid="job-status" data-status={status} title={status}>
      {tone === 'ongoing' && <span className="spinner" aria-hidden="true" />}
      {tone === 'ongoing' ? 'Ongoing' : status}
      {tone === 'ongoing' && status !== 'Ongoing' && <span className="status-phase">{status}</span>}
    </span>
  );
}
