import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, MODES, REDIS_URL, startStack, type TestStack } from '../test-support/harness';
import { BullMqJobQueue } from './job-queue';
import { JobStatus } from './job-states';
import { LOST_BEFORE_RUN, reconcileLostJobs } from './queue-reconcile';

// A BullMQ job lost from Redis (deleted, or Redis flushed) must not leave its output queued forever:
// the reconciler ends it Failed with a plain reason. The stack's own queue runs jobs at once, so the
// jobs here go through a second BullMQ queue with no worker, where they wait until the test acts.

describe.each(MODES.filter((m) => m.queue === 'bullmq'))('lost BullMQ jobs on $database', (mode) => {
  let stack: TestStack;
  let ownerId: number;
  let queue: BullMqJobQueue;
  let inspector: Queue;
  let redis: Redis;
  const queueName = `qml-test-${randomBytes(6).toString('hex')}-jobs`;

  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode);
    ownerId = (await stack.services.repositories.users.findByEmail(ADMIN.email))!.id;
    queue = new BullMqJobQueue(REDIS_URL, 1, queueName); // no startWorkers: its jobs stay waiting
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    inspector = new Queue(queueName, { connection: redis });
  });
  afterAll(async () => {
    await inspector?.obliterate({ force: true });
    await inspector?.close();
    redis?.disconnect();
    await queue?.close();
    await stack?.close();
  });

  /** A queued self-test job in the database, enqueued on the test's queue. */
  async function enqueued(): Promise<number> {
    const job = await stack.services.db.transaction((tx) =>
      stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId, params: { shots: 16 } }),
    );
    await queue.enqueue(job.id);
    return job.id;
  }

  const reconcile = (minAgeMs = 0) =>
    reconcileLostJobs(
      { queue, jobs: stack.services.repositories.jobs, runner: stack.services.runner },
      { minAgeMs },
    );

  async function bullJobOf(jobId: number) {
    const jobs = await inspector.getJobs(['waiting']);
    const found = jobs.find((job) => (job.data as { jobId: number }).jobId === jobId);
    if (!found) throw new Error(`job ${jobId} is not waiting in BullMQ`);
    return found;
  }

  it.skipIf(!mode.available)(
    'a job deleted from Redis ends Failed with the reason; one still there stays queued',
    async () => {
      const lost = await enqueued();
      const kept = await enqueued();
      await (await bullJobOf(lost)).remove();

      expect(await reconcile()).toEqual([lost]);
      const lostJob = (await stack.services.repositories.jobs.find(lost))!;
      expect(lostJob.status).toBe(JobStatus.failed);
      expect(lostJob.error).toBe('The job was lost by the queue (Redis) before it ran; run it again.');
      expect(lostJob.error).toBe(LOST_BEFORE_RUN);
      const events = await stack.services.repositories.jobs.events(lost);
      expect(events.at(-1)).toMatchObject({
        type: 'status',
        payload: { status: 'Failed', reason: LOST_BEFORE_RUN },
      });
      expect((await stack.services.repositories.jobs.find(kept))!.status).toBe(JobStatus.queued);

      // A second pass changes nothing more.
      expect(await reconcile()).toEqual([]);
    },
  );

  it.skipIf(!mode.available)(
    'after the queue is emptied (Redis flushed) every waiting output ends Failed',
    async () => {
      const first = await enqueued();
      const second = await enqueued();
      await inspector.obliterate({ force: true });
      const failed = await reconcile();
      expect(failed).toEqual(expect.arrayContaining([first, second]));
      for (const id of [first, second]) {
        expect((await stack.services.repositories.jobs.find(id))!.status).toBe(JobStatus.failed);
      }
    },
  );

  it.skipIf(!mode.available)(
    'a job younger than the grace time is left alone (it may be about to be enqueued)',
    async () => {
      const job = await stack.services.db.transaction((tx) =>
        stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId, params: { shots: 16 } }),
      );
      expect(await reconcile(60_000)).toEqual([]);
      expect((await stack.services.repositories.jobs.find(job.id))!.status).toBe(JobStatus.queued);
      expect(await reconcile(0)).toContain(job.id);
    },
  );
});
