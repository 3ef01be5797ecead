import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MODES, REDIS_URL } from '../test-support/harness';
import { BullMqJobQueue, InProcessJobQueue, LOWEST_PRIORITY, type JobQueue } from './job-queue';

// Background jobs (the landing page's example runs) never hold up a user: a user's job submitted after
// a background one starts first, on the in-process queue and on BullMQ; and on the in-process queue
// background jobs leave a slot free, so a user's job starts while they run.

/** A runner that records the order jobs start in and lets the test end each one. */
function recorder() {
  const started: number[] = [];
  const finish = new Map<number, () => void>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const run = (jobId: number) =>
    new Promise<void>((resolve) => {
      started.push(jobId);
      finish.set(jobId, resolve);
      for (const waiter of waiters) if (started.length >= waiter.count) waiter.resolve();
    });
  const startedCount = (count: number, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      if (started.length >= count) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`only ${started.length} of ${count} started`)),
        timeoutMs,
      );
      waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  return { started, run, end: (jobId: number) => finish.get(jobId)?.(), startedCount };
}

describe('queue priorities', () => {
  it('in-process: a user job submitted after a queued background job starts first', async () => {
    const queue = new InProcessJobQueue(1);
    const jobs = recorder();
    queue.startWorkers(jobs.run);
    await queue.enqueue(1); // a user's job, running
    await queue.enqueue(2, LOWEST_PRIORITY); // a background job, waiting
    await queue.enqueue(3, LOWEST_PRIORITY);
    await queue.enqueue(4); // a user's job, submitted later
    await jobs.startedCount(1);
    jobs.end(1);
    await jobs.startedCount(2);
    expect(jobs.started).toEqual([1, 4]);
    jobs.end(4);
    await jobs.startedCount(3);
    jobs.end(2);
    await jobs.startedCount(4);
    expect(jobs.started).toEqual([1, 4, 2, 3]);
    await queue.close();
  });

  it('in-process: background jobs take at most all slots but one, so a user job starts at once', async () => {
    const queue = new InProcessJobQueue(2);
    const jobs = recorder();
    queue.startWorkers(jobs.run);
    await queue.enqueue(1, LOWEST_PRIORITY);
    await queue.enqueue(2, LOWEST_PRIORITY);
    await jobs.startedCount(1);
    expect(jobs.started).toEqual([1]);
    await queue.enqueue(3);
    await jobs.startedCount(2);
    expect(jobs.started).toEqual([1, 3]);
    jobs.end(1);
    await jobs.startedCount(3);
    expect(jobs.started).toEqual([1, 3, 2]);
    await queue.close();
  });

  const bullmq = MODES.find((mode) => mode.queue === 'bullmq')!;
  it.skipIf(!bullmq.available)('BullMQ: a user job added after a background job is taken first', async () => {
    const queue: JobQueue = new BullMqJobQueue(
      REDIS_URL,
      1,
      `qml-test-priority-${randomBytes(6).toString('hex')}`,
    );
    const jobs = recorder();
    try {
      await queue.enqueue(11, LOWEST_PRIORITY);
      await queue.enqueue(12);
      queue.startWorkers(jobs.run);
      await jobs.startedCount(1);
      jobs.end(jobs.started[0]!);
      await jobs.startedCount(2);
      expect(jobs.started).toEqual([12, 11]);
      jobs.end(11);
    } finally {
      await queue.close();
    }
  });
});
