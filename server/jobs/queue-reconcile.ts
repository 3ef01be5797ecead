import type { FastifyBaseLogger } from 'fastify';
import { JobStatus } from './job-states';
import type { JobRunner } from './job-runner';
import type { JobsRepository } from './jobs-repository';

/** The reason of a queued output whose BullMQ job is gone (deleted, or Redis flushed or lost). */
export const LOST_BEFORE_RUN = 'The job was lost by the queue (Redis) before it ran; run it again.';
/** The same for a running output whose BullMQ job is gone and that does not run in this process. */
export const LOST_WHILE_RUNNING = 'The job was lost by the queue (Redis) while it ran; run it again.';

/** A queue that can say which of our job ids it still holds (waiting, delayed, active, ...). */
export interface ReconcilableQueue {
  liveJobIds(): Promise<Set<number>>;
}

export interface ReconcileOptions {
  /**
   * Jobs younger than this are left alone: a job is created in the database a moment before it is
   * enqueued, and a prediction is recorded without the queue (default 60 s).
   */
  minAgeMs?: number;
  now?: () => number;
}

const DEFAULT_MIN_AGE_MS = 60_000;

/**
 * Ends Failed the outputs the database holds as queued or running whose queue job no longer exists
 * (a job deleted from Redis, or Redis flushed), so none waits forever. A job running in this
 * process is left alone; one running elsewhere is also told to stop. Returns the ids it failed.
 * The queue is asked after the database, and each change is conditional on the status read, so a
 * job that moves on meanwhile is not touched. When the queue cannot answer, nothing changes.
 */
export async function reconcileLostJobs(
  deps: { queue: ReconcilableQueue; jobs: JobsRepository; runner: JobRunner },
  options: ReconcileOptions = {},
): Promise<number[]> {
  const now = (options.now ?? Date.now)();
  const minAge = options.minAgeMs ?? DEFAULT_MIN_AGE_MS;
  const candidates = (await deps.jobs.listByStatus([JobStatus.queued, JobStatus.running])).filter(
    (job) => now - new Date(job.created_at).getTime() >= minAge && deps.runner.pidOf(job.id) === undefined,
  );
  if (candidates.length === 0) return [];
  const live = await deps.queue.liveJobIds();
  const failed: number[] = [];
  for (const job of candidates) {
    if (live.has(job.id)) continue;
    const reason = job.status === JobStatus.queued ? LOST_BEFORE_RUN : LOST_WHILE_RUNNING;
    const moved = await deps.runner.transition(job.id, [job.status], JobStatus.failed, {
      error: reason,
      reason,
    });
    if (!moved) continue;
    failed.push(job.id);
    // Whoever still runs it (another machine) stops; its own end is then not recorded over this one.
    if (job.status === JobStatus.running) await deps.runner.stop({ ...job, status: JobStatus.failed });
  }
  return failed;
}

/**
 * Runs reconcileLostJobs now and then every `intervalMs` (default 60 s), one pass at a time; a pass
 * that fails (Redis or the database away) is logged and retried at the next tick. stop() ends it.
 */
export function startQueueReconciler(
  deps: { queue: ReconcilableQueue; jobs: JobsRepository; runner: JobRunner; log: FastifyBaseLogger },
  options: ReconcileOptions & { intervalMs?: number } = {},
): { stop(): void } {
  let busy = false;
  let stopped = false;
  const pass = async () => {
    if (busy || stopped) return;
    busy = true;
    try {
      const failed = await reconcileLostJobs(deps, options);
      if (failed.length > 0) deps.log.warn({ jobIds: failed }, 'jobs lost by the queue were recorded Failed');
    } catch (error) {
      if (!stopped) deps.log.warn({ err: error }, 'lost-job check failed; retried at the next tick');
    } finally {
      busy = false;
    }
  };
  void pass();
  const timer = setInterval(() => void pass(), options.intervalMs ?? 60_000);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
