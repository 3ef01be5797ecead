/**
 * The job lifecycle every run shares: queued -> running -> Completed | Failed | Manual Stop.
 * The one list of job statuses: the repository's SQL (passed as parameters, never spelled out), the
 * jobs table's CHECK constraint (migration 0002, verified against this list by jobs.test.ts) and the OpenAPI `status` enum (from which the
 * browser's types are generated) all come from here.
 */
export const JobStatus = {
  queued: 'queued',
  running: 'running',
  completed: 'Completed',
  failed: 'Failed',
  manualStop: 'Manual Stop',
} as const;

export type JobStatusValue = (typeof JobStatus)[keyof typeof JobStatus];

/** Every status, in lifecycle order. */
export const JOB_STATUSES = [
  JobStatus.queued,
  JobStatus.running,
  JobStatus.completed,
  JobStatus.failed,
  JobStatus.manualStop,
] as const satisfies readonly JobStatusValue[];

export const FINAL_STATUSES = [
  JobStatus.completed,
  JobStatus.failed,
  JobStatus.manualStop,
] as const satisfies readonly JobStatusValue[];

export const isFinal = (status: string): boolean => (FINAL_STATUSES as readonly string[]).includes(status);
