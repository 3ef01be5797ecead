import { spawn } from 'node:child_process';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startStack, type TestStack } from '../test-support/harness';
import { JobRunner, KILLED_FROM_OUTSIDE, OUT_OF_MEMORY } from './job-runner';
import { MemoryEvidence } from './memory-evidence';
import type { WorkerLauncher } from './worker-launcher';
import type { WorkerExit } from './worker-process';

// A worker process ended by SIGKILL that nobody in the server sent: 'ran out of memory' only when the
// evidence says memory (the kernel's record of that process here), otherwise a kill from outside.

/** A launcher whose "worker" is a real process that sleeps until it is killed. */
function sleepingLauncher(started: (pid: number) => void): WorkerLauncher {
  return {
    kind: 'cold',
    launch() {
      const child = spawn('sleep', ['60']);
      started(child.pid!);
      const done = new Promise<WorkerExit>((resolve) =>
        child.on('exit', (code, signal) => resolve({ code, signal, stderrTail: '' })),
      );
      return { done, pid: child.pid, kill: (signal) => child.kill(signal) };
    },
    close: async () => undefined,
  };
}

describe('a worker killed from outside', () => {
  let stack: TestStack;
  let ownerId: number;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    ownerId = (await stack.services.repositories.users.findByEmail(ADMIN.email))!.id;
  }, 120_000);
  afterAll(async () => stack?.close());

  /** Runs a job whose worker is killed with SIGKILL once started; its recorded status and reason. */
  async function killedRun(kernelLog: (pid: number) => string) {
    const job = await stack.services.db.transaction((tx) =>
      stack.services.repositories.jobs.create(tx, { kind: 'self-test', ownerId, params: {} }),
    );
    let workerPid = 0;
    const runner = new JobRunner(
      stack.services.repositories.jobs,
      stack.services.bus,
      {
        launcher: sleepingLauncher((pid) => {
          workerPid = pid;
          setTimeout(() => process.kill(pid, 'SIGKILL'), 100);
        }),
        timeoutSeconds: 30,
        memoryEvidence: new MemoryEvidence({ kernelLog: async () => kernelLog(workerPid) }),
      },
      pino({ level: 'silent' }),
    );
    await runner.run(job.id);
    return (await stack.services.repositories.jobs.find(job.id))!;
  }

  it('is not called out of memory without evidence', async () => {
    const job = await killedRun(() => '');
    expect(job.status).toBe('Failed');
    expect(job.error).toBe(KILLED_FROM_OUTSIDE);
  });

  it("is out of memory when the kernel's log names the process", async () => {
    const job = await killedRun(
      (pid) => `[ 812.3] Memory cgroup out of memory: Killed process ${pid} (python) total-vm:9000000kB`,
    );
    expect(job.status).toBe('Failed');
    expect(job.error).toMatch(new RegExp(`^${OUT_OF_MEMORY} \\(the kernel's out-of-memory killer ended it`));
  });
});
