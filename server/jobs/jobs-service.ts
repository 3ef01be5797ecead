import type { Database } from '../db/database';
import type { UserRecord } from '../auth/users-repository';
import { isAdmin } from '../auth/auth-plugin';
import { isFinal, JobStatus } from './job-states';
import type { JobQueue } from './job-queue';
import type { JobEventBus, JobEventListener } from './job-event-bus';
import type { JobRunner } from './job-runner';
import type { JobEventRecord, JobRecord, JobsRepository, NewJob } from './jobs-repository';

/** Creating, reading and stopping jobs, with ownership decided here: a stranger's job is "not found". */
export class JobsService {
  constructor(
    private readonly db: Database,
    private readonly repository: JobsRepository,
    private readonly queue: JobQueue,
    readonly runner: JobRunner,
    private readonly bus: JobEventBus,
  ) {}

  /**
   * Creates a job (queued) and enqueues it. An output (`extra.applicationId`) also keeps the
   * application's app_data snapshot, the envelope extension and its name (`{id}` = the new id).
   */
  async submit(
    owner: UserRecord,
    kind: string,
    params: object,
    extra: Omit<NewJob, 'kind' | 'ownerId' | 'params'> = {},
  ): Promise<JobRecord> {
    const job = await this.db.transaction((tx) =>
      this.repository.create(tx, { kind, ownerId: owner.id, params, ...extra }),
    );
    try {
      await this.queue.enqueue(job.id, job.queue_priority);
    } catch (error) {
      const reason = `The job could not be queued: ${error instanceof Error ? error.message : String(error)}`;
      await this.runner.transition(job.id, [JobStatus.queued], JobStatus.failed, { error: reason, reason });
      throw error;
    }
    return job;
  }

  async findVisible(user: UserRecord, jobId: number): Promise<JobRecord | null> {
    const job = await this.repository.find(jobId);
    if (!job || (job.owner_id !== user.id && !isAdmin(user))) return null;
    return job;
  }

  subscribe(jobId: number, listener: JobEventListener): () => void {
    return this.bus.subscribe(jobId, listener);
  }

  /** A page of the user's jobs, newest first, and the cursor of the next page (null on the last). */
  async list(
    user: UserRecord,
    page: { limit: number; before: number | null },
  ): Promise<{ jobs: JobRecord[]; nextBefore: number | null }> {
    const rows = await this.repository.listByOwner(user.id, { ...page, limit: page.limit + 1 });
    const jobs = rows.slice(0, page.limit);
    return { jobs, nextBefore: rows.length > page.limit ? jobs.at(-1)!.id : null };
  }

  /** The events of a job after sequence number `afterSeq`, in order. */
  events(jobId: number, afterSeq = -1): Promise<JobEventRecord[]> {
    return this.repository.events(jobId, afterSeq);
  }

  async stop(user: UserRecord, jobId: number): Promise<JobRecord | null> {
    const job = await this.findVisible(user, jobId);
    if (!job) return null;
    if (!isFinal(job.status)) await this.runner.stop(job);
    return job;
  }

  /**
   * After a restart of the embedded default, nothing runs any more: running jobs are marked Failed
   * and queued ones are queued again.
   */
  async recoverAfterRestart(): Promise<void> {
    for (const job of await this.repository.listByStatus([JobStatus.running])) {
      const reason = 'The server restarted while the job was running';
      await this.runner.transition(job.id, [JobStatus.running], JobStatus.failed, { error: reason, reason });
    }
    for (const job of await this.repository.listByStatus([JobStatus.queued]))
      await this.queue.enqueue(job.id, job.queue_priority);
  }
}
