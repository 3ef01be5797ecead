import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startStack, type TestStack } from '../test-support/harness';
import { JobRunner } from './job-runner';
import { JobStatus } from './job-states';
import { MemoryEvidence } from './memory-evidence';
import type { WorkerLauncher } from './worker-launcher';

// A stop that comes after a job is recorded Running but before its worker process exists (while the
// runner builds its envelope) must still stop it: before, the stop found no process and was dropped,
// and the job ran to Completed.

describe('a stop while the job is starting', () => {
  let stack: TestStack;
  let ownerId: number;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    ownerId = (await stack.services.repositories.users.findByEmail(ADMIN.email))!.id;
  }, 120_000);
  afterAll(async () => stack?.close());

  it('ends it Manual Stop without launching a worker', async () => {
    const job = await stack.services.db.transaction((tx) =>
      stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId, params: {} }),
    );
    let launches = 0;
    const launcher: WorkerLauncher = {
      kind: 'cold',
      launch() {
        launches += 1;
        // A worker that never ends by itself: only a signal or the time limit ends it.
        let end: (signal: NodeJS.Signals) => void = () => undefined;
        const done = new Promise<{ code: null; signal: NodeJS.Signals; stderrTail: string }>((resolve) => {
          end = (signal) => resolve({ code: null, signal, stderrTail: '' });
        });
        return { done, pid: undefined, kill: (signal) => end(signal) };
      },
      close: async () => undefined,
    };
    // The runner's last step before the launch (reading the memory counters) waits until the stop is sent.
    let reachedStart!: () => void;
    const started = new Promise<void>((resolve) => (reachedStart = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const memoryEvidence = new MemoryEvidence({
      ownCgroups: async () => {
        reachedStart();
        await released;
        return '';
      },
    });
    const runner = new JobRunner(
      stack.services.repositories.jobs,
      stack.services.bus,
      { launcher, timeoutSeconds: 2, memoryEvidence },
      pino({ level: 'silent' }),
    );
    const run = runner.run(job.id);
    await started;
    const running = (await stack.services.repositories.jobs.find(job.id))!;
    expect(running.status).toBe(JobStatus.running);
    await runner.stop(running);
    release();
    await run;

    const final = (await stack.services.repositories.jobs.find(job.id))!;
    expect(final.status).toBe(JobStatus.manualStop);
    expect(final.error).toBe('Stopped by the user');
    expect(launches).toBe(0);
  });
});
