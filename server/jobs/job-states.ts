/** The job lifecycle every run shares: queued -> running -> Completed | Failed | Manual Stop. */
export const JobStatus = {
  queued: 'queued',
  running: 'running',
  completed: 'Completed',
  failed: 'Failed',
  manualStop: 'Manual Stop',
} as const;

export type JobStatusValue = (typeof JobStatus)[keyof typeof JobStatus];

export const FINAL_STATUSES: readonly JobStatusValue[] = [
  JobStatus.completed,
  JobStatus.failed,
  JobStatus.manualStop,
];

export const isFinal = (status: string): boolean => (FINAL_STATUSES as readonly string[]).includes(status);
