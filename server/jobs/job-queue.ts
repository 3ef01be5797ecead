import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

export type RunJob = (jobId: number) => Promise<void>;

/** Hands job ids to a runner with a concurrency limit: in this process, or through BullMQ on Redis. */
export interface JobQueue {
  readonly mode: 'in-process' | 'bullmq';
  enqueue(jobId: number): Promise<void>;
  /** Starts taking jobs (a server with no local workers never calls it). */
  startWorkers(run: RunJob): void;
  health(): Promise<void>;
  close(): Promise<void>;
}

export class InProcessJobQueue implements JobQueue {
  readonly mode = 'in-process' as const;
  private readonly waiting: number[] = [];
  private active = 0;
  private run: RunJob | null = null;
  private closed = false;

  constructor(private readonly concurrency: number) {}

  async enqueue(jobId: number) {
    this.waiting.push(jobId);
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

  private pump() {
    while (this.run && !this.closed && this.active < this.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift()!;
      this.active++;
      void this.run(jobId)
        .catch(() => undefined)
        .finally(() => {
          this.active--;
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
  ) {
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    this.queue = new Queue(queueName, { connection: this.connection });
  }

  async enqueue(jobId: number) {
    // No custom BullMQ id: ids from our database would collide with leftovers of another database
    // sharing the Redis server, and BullMQ silently drops a job whose id it has already seen.
    await this.queue.add('run', { jobId }, { removeOnComplete: 1000, removeOnFail: 1000, attempts: 1 });
  }

  startWorkers(run: RunJob) {
    this.worker = new Worker(
      this.queueName,
      async (job) => {
        const { jobId } = job.data as { jobId: number };
        // Fetched while this process shuts down: handed back to the queue for another worker.
        if (this.closing) return this.enqueue(jobId);
        return run(jobId);
      },
      {
        connection: new Redis(this.connection.options),
        concurrency: this.concurrency,
        // A training job can run for hours; the lock is renewed while the process lives.
        lockDuration: 60_000,
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
