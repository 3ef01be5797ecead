import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

export type RunJob = (jobId: number) => Promise<void>;

/** A user's job: BullMQ runs jobs without a priority before every prioritised one. */
export const USER_PRIORITY = 0;
/**
 * The background jobs no user waits for (the landing page's example runs): the largest number is
 * the lowest priority in BullMQ (1 to 2,097,151), and the in-process queue orders the same way.
 */
export const LOWEST_PRIORITY = 2_097_151;

/** Hands job ids to a runner with a concurrency limit: in this process, or through BullMQ on Redis. */
export interface JobQueue {
  readonly mode: 'in-process' | 'bullmq';
  /** Queues a job; a larger `priority` runs later (USER_PRIORITY first, LOWEST_PRIORITY last). */
  enqueue(jobId: number, priority?: number): Promise<void>;
  /** Starts taking jobs (a server with no local workers never calls it). */
  startWorkers(run: RunJob): void;
  health(): Promise<void>;
  close(): Promise<void>;
}

export class InProcessJobQueue implements JobQueue {
  readonly mode = 'in-process' as const;
  /** Waiting jobs by priority, first come first served within one priority. */
  private readonly waiting: { jobId: number; priority: number }[] = [];
  private active = 0;
  /** Running jobs of a priority below the users' (background jobs). */
  private activeBackground = 0;
  private run: RunJob | null = null;
  private closed = false;

  constructor(private readonly concurrency: number) {}

  async enqueue(jobId: number, priority = USER_PRIORITY) {
    // After the last waiting job of the same or a higher priority: a user's job passes background ones.
    const at = this.waiting.findIndex((entry) => entry.priority > priority);
    this.waiting.splice(at === -1 ? this.waiting.length : at, 0, { jobId, priority });
    this.pump();
  }

  startWorkers(run: RunJob) {
    this.run = run;
    this.pump();
  }

  async health() {}

  async close() {
    this.closed = true;
  }

  /**
   * Background jobs leave one slot free for users when there are two or more, so a user's job
   * submitted while they run starts at once instead of waiting for one to end.
   */
  private get backgroundSlots() {
    return Math.max(1, this.concurrency - 1);
  }

  private pump() {
    while (this.run && !this.closed && this.active < this.concurrency) {
      const next = this.waiting[0];
      if (!next) return;
      const background = next.priority > USER_PRIORITY;
      if (background && this.activeBackground >= this.backgroundSlots) return;
      this.waiting.shift();
      this.active++;
      if (background) this.activeBackground++;
      void this.run(next.jobId)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
          if (background) this.activeBackground--;
          this.pump();
        });
    }
  }
}

export class BullMqJobQueue implements JobQueue {
  readonly mode = 'bullmq' as const;
  private readonly connection: Redis;
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    redisUrl: string,
    private readonly concurrency: number,
    private readonly queueName = 'qml-jobs',
    /** WORKER_LOCK_SECONDS: a worker's hold on a running job, renewed while the worker lives. */
    private readonly lockSeconds = 60,
  ) {
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.queue = new Queue(queueName, { connection: this.connection });
  }

  async enqueue(jobId: number, priority = USER_PRIORITY) {
    // No custom BullMQ id: ids from our database would collide with leftovers of another database
    // sharing the Redis server, and BullMQ silently drops a job whose id it has already seen.
    await this.queue.add(
      'run',
      { jobId, priority },
      {
        removeOnComplete: 1000,
        removeOnFail: 1000,
        attempts: 1,
        // BullMQ runs jobs without a priority before prioritised ones; 0 means none.
        ...(priority > USER_PRIORITY && { priority }),
      },
    );
  }

  startWorkers(run: RunJob) {
    this.worker = new Worker(
      this.queueName,
      async (job) => {
        const { jobId, priority } = job.data as { jobId: number; priority?: number };
        // Fetched while this process shuts down: handed back to the queue for another worker.
        if (this.closing) return this.enqueue(jobId, priority);
        return run(jobId);
      },
      {
        connection: new Redis(this.connection.options),
        concurrency: this.concurrency,
        // A training job can run for hours; the lock is renewed while the process lives (every half
        // lock). A worker that vanished loses it; the stalled check (every half lock) then hands the job out.
        lockDuration: this.lockSeconds * 1000,
        stalledInterval: (this.lockSeconds * 1000) / 2,
        // A job whose worker died is handed out once more; the runner then records it Failed.
        maxStalledCount: 1,
      },
    );
    this.worker.on('error', () => undefined);
  }

  async health() {
    await this.connection.ping();
  }

  /**
   * Our job ids BullMQ still holds to run or running (waiting, or paused, delayed, prioritized, active):
   * an output not among them was lost by the queue (queue-reconcile.ts).
   */
  async liveJobIds(): Promise<Set<number>> {
    const jobs = await this.queue.getJobs([
      'waiting',
      'delayed',
      'prioritized',
      'active',
      'waiting-children',
    ]);
    const ids = new Set<number>();
    for (const job of jobs) {
      // getJobs may list a job removed while it read (undefined entries).
      const jobId = (job?.data as { jobId?: unknown } | undefined)?.jobId;
      if (typeof jobId === 'number') ids.add(jobId);
    }
    return ids;
  }

  /** Stops taking jobs at once, waits for the jobs under way (shutdown stops them), disconnects. */
  close() {
    this.closing ??= (async () => {
      await this.worker?.close();
      await this.queue.close();
      this.connection.disconnect();
    })();
    return this.closing;
  }
}
