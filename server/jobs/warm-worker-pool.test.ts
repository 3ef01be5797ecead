import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  bearer,
  ONE_MODE,
  startStack,
  submitSelfTest,
  waitForFinal,
  waitForRunning,
  type TestStack,
} from '../test-support/harness';
import { writeFakePython } from '../test-support/fake-python';
import { loadConfig } from '../config';
import { WarmWorkerPool, WORKER_LOST_MESSAGE } from './warm-worker-pool';
import type { WorkerLaunch } from './worker-launcher';
import type { WorkerHandle } from './worker-process';

const PYTHON = loadConfig({}).workerPython;

type Line = Record<string, unknown> & { type: string };

/** A log that keeps what the pool says (the fallback and restart messages are part of its behaviour). */
function recordingLog() {
  const entries: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: object, msg: string) => void entries.push({ level, msg });
  return { entries, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Launches a command and collects its lines; `firstLine` resolves at the first one. */
function launch(pool: WarmWorkerPool, command: WorkerLaunch['command'], input: unknown) {
  const lines: Line[] = [];
  let markFirst!: () => void;
  const firstLine = new Promise<void>((resolve) => (markFirst = resolve));
  const handle: WorkerHandle = pool.launch({
    command,
    input,
    onLine: (text) => {
      lines.push(JSON.parse(text) as Line);
      markFirst();
    },
  });
  return { handle, lines, firstLine };
}

const selfTest = (params: object, id = 'warm') => ({
  kind: 'self-test',
  job_id: id,
  params,
  output_dir: mkdtempSync(path.join(os.tmpdir(), 'qml-warm-out-')),
});

/** The parent process id and process group id of a running process (from /proc). */
function processIds(pid: number): { ppid: number; pgid: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('warm worker pool (the real worker)', () => {
  const log = recordingLog();
  let pool: WarmWorkerPool;
  let parentPid: number;
  beforeAll(async () => {
    pool = new WarmWorkerPool({ python: PYTHON, log, startNow: true });
    expect(await pool.warmUp()).toBe(true);
    parentPid = pool.parentPid!;
  });
  afterAll(async () => pool?.close());

  it('runs a job in a child the preloaded parent forked, with the lines the cold CLI prints', async () => {
    const run = launch(pool, 'run', selfTest({ shots: 128, seed: 7 }));
    await run.firstLine;
    const pid = run.handle.pid!;
    expect(pid).not.toBe(parentPid);
    const exit = await run.handle.done;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // Only protocol lines reach the caller: the parent's pid and exit lines stay in the pool.
    expect(run.lines.every((line) => typeof line.type === 'string')).toBe(true);
    expect(run.lines[0]).toMatchObject({ type: 'progress' });
    const result = run.lines.at(-1)!;
    expect(result.type).toBe('result');
    const counts = (result.data as { counts: Record<string, number> }).counts;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(128);
    expect(run.lines.filter((line) => line.type === 'result')).toHaveLength(1);
    expect(alive(pid)).toBe(false);
    expect(pool.parentPid).toBe(parentPid);
  });

  it('runs two jobs at once, each in its own process group, their lines kept apart', async () => {
    const a = launch(pool, 'run', selfTest({ shots: 100, delay_seconds: 1 }, 'a'));
    const b = launch(pool, 'run', selfTest({ shots: 300, delay_seconds: 1 }, 'b'));
    await Promise.all([a.firstLine, b.firstLine]);
    const [pidA, pidB] = [a.handle.pid!, b.handle.pid!];
    expect(pidA).not.toBe(pidB);
    for (const pid of [pidA, pidB]) expect(processIds(pid)).toEqual({ ppid: parentPid, pgid: pid });
    const [exitA, exitB] = await Promise.all([a.handle.done, b.handle.done]);
    expect(exitA.code).toBe(0);
    expect(exitB.code).toBe(0);
    const shots = (run: { lines: Line[] }) =>
      Object.values((run.lines.at(-1)!.data as { counts: Record<string, number> }).counts).reduce(
        (x, y) => x + y,
        0,
      );
    expect(shots(a)).toBe(100);
    expect(shots(b)).toBe(300);
  });

  it('stops a job with SIGTERM to its group; the parent lives on', async () => {
    const run = launch(pool, 'run', selfTest({ delay_seconds: 60 }));
    await run.firstLine;
    const pid = run.handle.pid!;
    run.handle.kill('SIGTERM');
    const exit = await run.handle.done;
    expect(exit).toMatchObject({ code: null, signal: 'SIGTERM' });
    expect(run.lines.some((line) => line.type === 'result')).toBe(false);
    expect(alive(pid)).toBe(false);
    expect(pool.parentPid).toBe(parentPid);
    expect(alive(parentPid)).toBe(true);
  });

  it('reports a crashed child (SIGKILL) as killed; the parent lives on', async () => {
    const run = launch(pool, 'run', selfTest({ delay_seconds: 60 }));
    await run.firstLine;
    process.kill(run.handle.pid!, 'SIGKILL');
    expect(await run.handle.done).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(pool.parentPid).toBe(parentPid);
  });

  it('stops a launch killed before its child exists: nothing runs', async () => {
    const run = launch(pool, 'run', selfTest({ delay_seconds: 60 }));
    run.handle.kill('SIGTERM'); // before the pid line can have come
    const exit = await run.handle.done;
    expect(exit.signal).toBe('SIGTERM');
    expect(run.lines.some((line) => line.type === 'result')).toBe(false);
  });

  it('passes the exit code, the error line and the stderr tail of a failing job', async () => {
    const refused = launch(pool, 'run', { kind: 'no-such-kind', job_id: 'x', params: {} });
    expect(await refused.handle.done).toMatchObject({ code: 2, signal: null });
    expect(refused.lines.at(-1)).toMatchObject({ type: 'error', kind: 'validation' });

    // An output directory that cannot be created: the handler raises, the traceback goes to stderr.
    const broken = launch(pool, 'run', { ...selfTest({ shots: 16 }), output_dir: '/proc/qml-no-such/out' });
    const exit = await broken.handle.done;
    expect(exit.code).toBe(1);
    expect(exit.stderrTail).toContain('Traceback');
    expect(broken.lines.at(-1)).toMatchObject({ type: 'error', kind: 'runtime' });
  });

  it('runs the infer command too (a refused request: exit 2 naming the field)', async () => {
    const run = launch(pool, 'infer', { problem: 'stock-price-prediction' });
    const exit = await run.handle.done;
    expect(exit.code).toBe(2);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatchObject({ type: 'error', kind: 'validation' });
  });

  it('runs a launcher with settings of its own on the same parent, its child under those settings', async () => {
    // What the server tests' stacks do (one parent for many stacks): the child builds its file store from
    // the launcher's settings, not the parent's (a job publishes its output folder through the store).
    const other = pool.withEnvironment({ STORAGE_BACKEND: 'bogus' });
    const lines: Line[] = [];
    const handle = other.launch({
      command: 'run',
      input: selfTest({ shots: 16, delay_seconds: 1 }),
      onLine: (text) => void lines.push(JSON.parse(text) as Line),
    });
    await until(() => handle.pid !== undefined);
    expect(processIds(handle.pid!).ppid).toBe(parentPid);
    expect((await handle.done).code).toBe(1);
    expect(lines.at(-1)).toMatchObject({ type: 'error', kind: 'runtime' });
    expect(String(lines.at(-1)!.message)).toContain("STORAGE_BACKEND must be local or s3 (got 'bogus')");
    await other.close(); // leaves the pool to its owner
    const own = launch(pool, 'run', selfTest({ shots: 16 }));
    expect((await own.handle.done).code).toBe(0);
    expect(pool.parentPid).toBe(parentPid);
  });

  it("attached to another process's parent (WORKER_SERVE_SOCKET), forks there with its own settings and leaves it running", async () => {
    // The socket the parent was started on, read from its command line as another process would be told it.
    const argv = readFileSync(`/proc/${parentPid}/cmdline`, 'utf8').split('\0');
    const socket = argv[argv.indexOf('--socket') + 1]!;
    const attachedLog = recordingLog();
    const attached = new WarmWorkerPool({
      python: PYTHON,
      log: attachedLog,
      attachTo: socket,
      env: { STORAGE_BACKEND: 'bogus' },
    });
    try {
      const run = launch(attached, 'run', selfTest({ shots: 16, delay_seconds: 1 }));
      await until(() => run.handle.pid !== undefined);
      expect(processIds(run.handle.pid!).ppid).toBe(parentPid);
      // The child runs under the attached pool's settings, not the parent's.
      expect((await run.handle.done).code).toBe(1);
      expect(String(run.lines.at(-1)!.message)).toContain(
        "STORAGE_BACKEND must be local or s3 (got 'bogus')",
      );
      expect(attached.fellBackToCold).toBe(false);
    } finally {
      await attached.close();
    }
    expect(alive(parentPid)).toBe(true);
    expect(pool.parentPid).toBe(parentPid);
  });

  it("when another process's parent cannot be reached, launches cold and says so", async () => {
    const fake = writeFakePython(); // answers `run`
    const attachedLog = recordingLog();
    const attached = new WarmWorkerPool({
      python: fake.python,
      log: attachedLog,
      attachTo: path.join(mkdtempSync(path.join(os.tmpdir(), 'qml-nobody-')), 'worker.sock'),
    });
    try {
      const run = launch(attached, 'run', selfTest({}));
      await run.firstLine;
      expect(run.lines[0]).toMatchObject({ type: 'progress', stage: 'fake run' });
      expect(attached.fellBackToCold).toBe(true);
      expect(attachedLog.entries.some((e) => e.level === 'warn' && e.msg.includes('cannot be reached'))).toBe(
        true,
      );
      run.handle.kill('SIGKILL');
      await run.handle.done;
    } finally {
      await attached.close();
    }
  });

  it('when the parent dies, its running job ends lost and a new parent serves the next job', async () => {
    const run = launch(pool, 'run', selfTest({ delay_seconds: 60 }));
    await run.firstLine;
    const child = run.handle.pid!;
    process.kill(parentPid, 'SIGKILL');
    const exit = await run.handle.done;
    expect(exit).toMatchObject({ code: null, signal: null });
    expect(exit.lost).toBe(WORKER_LOST_MESSAGE);
    await until(() => !alive(child)); // the orphaned child was killed, not left running
    expect(log.entries.some((e) => e.level === 'error' && e.msg.includes('starting it again'))).toBe(true);

    const next = launch(pool, 'run', selfTest({ shots: 64 }));
    expect((await next.handle.done).code).toBe(0);
    expect(next.lines.at(-1)!.type).toBe('result');
    expect(pool.parentPid).toBeDefined();
    expect(pool.parentPid).not.toBe(parentPid);
  });
});

describe('WORKER_WARM', () => {
  it('false: a fresh Python per job; lazy: no parent until the first launch', async () => {
    const cold = await startStack({ database: 'pglite', queue: 'in-process' }, { WORKER_WARM: 'false' });
    try {
      expect(cold.services.launcher.kind).toBe('cold');
    } finally {
      await cold.close();
    }
    const lazy = await startStack({ database: 'pglite', queue: 'in-process' }, { WORKER_WARM: 'lazy' });
    try {
      expect(lazy.services.launcher.kind).toBe('warm');
      expect((lazy.services.launcher as WarmWorkerPool).parentPid).toBeUndefined();
    } finally {
      await lazy.close();
    }
  });
});

describe('warm worker pool fallback', () => {
  it('launches cold (and says so) when the Python cannot serve', async () => {
    const fake = writeFakePython(); // answers `run`, refuses `serve`
    const log = recordingLog();
    const pool = new WarmWorkerPool({ python: fake.python, log });
    try {
      const run = launch(pool, 'run', selfTest({}));
      await run.firstLine;
      expect(pool.fellBackToCold).toBe(true);
      expect(run.lines[0]).toMatchObject({ type: 'progress', stage: 'fake run' });
      run.handle.kill('SIGKILL');
      expect((await run.handle.done).signal).toBe('SIGKILL');
      expect(log.entries.some((e) => e.level === 'warn' && e.msg.includes('could not start'))).toBe(true);
      expect(await pool.warmUp()).toBe(false);
    } finally {
      await pool.close();
    }
  });
});

// One mode: the pool sits below the queue (the runner launches through it whichever queue handed the job
// out), and every stack's jobs run through the shared warm pool, so jobs.test.ts's passes stop and kill
// warm children under BullMQ and PostgreSQL too. Each pass here starts two preloaded Pythons of its own.
describe.each([ONE_MODE])('jobs through warm workers with the $queue queue', (mode) => {
  let stack: TestStack;
  let pool: WarmWorkerPool;
  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode, {
      WORKER_WARM: 'true',
      WORKER_CONCURRENCY: '2',
      WORKER_TIMEOUT_SECONDS: '60',
    });
    pool = stack.services.launcher as WarmWorkerPool;
    expect(pool.kind).toBe('warm');
    expect(await pool.warmUp()).toBe(true);
  });
  afterAll(async () => stack?.close());

  it.skipIf(!mode.available)('runs self-tests to Completed in children of the warm parent', async () => {
    const ids = [
      (await submitSelfTest(stack, { shots: 256, delay_seconds: 1 })).id,
      (await submitSelfTest(stack, { shots: 512 })).id,
    ];
    const pid = await waitForRunning(stack, ids[0]!);
    expect(processIds(pid).ppid).toBe(pool.parentPid);
    for (const id of ids) {
      const { job } = (await waitForFinal(stack, id)) as unknown as { job: { status: string } };
      expect(job.status).toBe('Completed');
    }
  });

  it.skipIf(!mode.available)('stop: Manual Stop, and the parent survives', async () => {
    const parentPid = pool.parentPid;
    const id = (await submitSelfTest(stack, { delay_seconds: 60 })).id;
    const pid = await waitForRunning(stack, id);
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api/jobs/${id}/stop`,
      headers: bearer(stack.adminToken),
    });
    expect(reply.statusCode).toBe(202);
    expect((await waitForFinal(stack, id, 15_000)).job.status).toBe('Manual Stop');
    expect(alive(pid)).toBe(false);
    expect(pool.parentPid).toBe(parentPid);
  });

  it.skipIf(!mode.available)('a crashed child: Failed naming SIGKILL, and the parent survives', async () => {
    const parentPid = pool.parentPid;
    const id = (await submitSelfTest(stack, { delay_seconds: 60 })).id;
    process.kill(await waitForRunning(stack, id), 'SIGKILL');
    const { job } = (await waitForFinal(stack, id, 15_000)) as unknown as {
      job: { status: string; error: string };
    };
    expect(job.status).toBe('Failed');
    expect(job.error).toContain('SIGKILL');
    expect(pool.parentPid).toBe(parentPid);
  });

  it.skipIf(!mode.available)(
    'the parent killed: the running job is Failed as lost, and the next job completes',
    async () => {
      const parentPid = pool.parentPid!;
      const id = (await submitSelfTest(stack, { delay_seconds: 60 })).id;
      await waitForRunning(stack, id);
      process.kill(parentPid, 'SIGKILL');
      const { job } = (await waitForFinal(stack, id, 15_000)) as unknown as {
        job: { status: string; error: string };
      };
      expect(job.status).toBe('Failed');
      expect(job.error).toBe(WORKER_LOST_MESSAGE);
      const next = (await submitSelfTest(stack, { shots: 128 })).id;
      expect((await waitForFinal(stack, next)).job.status).toBe('Completed');
      expect(pool.parentPid).not.toBe(parentPid);
    },
  );
});
