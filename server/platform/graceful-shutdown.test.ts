import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../db/database';
import { writeFakePython } from '../test-support/fake-python';
import { writeMigratedDataDir } from '../test-support/pglite-template';
import { MODES, startStack, submitSelfTest, waitForRunning, type TestStack } from '../test-support/harness';
import { serverBundle } from '../test-support/server-bundle';
import { shutDownGracefully } from './graceful-shutdown';

const ROOT = path.resolve(import.meta.dirname, '../..');

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers signal 0: look at its state.
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
};

async function until<T>(
  what: string | (() => string),
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('graceful shutdown of the real server', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-shutdown-'));
  let child: ChildProcess | null = null;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('on SIGTERM stops the running job, records it Failed, leaves no process behind and exits', async () => {
    const fake = writeFakePython();
    const port = await freePort();
    const admin = { email: 'admin@example.com', password: 'shutdown admin password' };
    let output = '';
    // The real server (tsx server/main.ts) on the run's migrated database template written to its DATA_DIR:
    // no initdb in WASM (most of a start on a loaded machine); its migrations still run and find nothing to do.
    await writeMigratedDataDir(path.join(dataDir, 'pglite'), inject('pgliteTemplate'));
    // server/main.ts as the end-to-end products run it, bundled (server/test-support/server-bundle.ts, built once
    // per change of the sources and shared with the e2e suite): under tsx its start transpiled ~180 files.
    // Plain node, as `npm start`'s `node --import tsx`: tsx's CLI wrapper relays a signal only if the server
    // acknowledges it within 30 ms, and SIGKILLs it otherwise (exit 143 on a loaded machine).
    child = spawn(process.execPath, ['--enable-source-maps', await serverBundle()], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        WORKER_PYTHON: fake.python,
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        LOG_LEVEL: 'warn',
        // No landing-page example runs: the fake worker's pids file holds the self-test's processes only.
        DEMO_RESULTS: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;
    // A deadline, not a speed check: starts took 40-60 s on a loaded 2-core machine when they still ran
    // initdb.
    await until(
      () => `the server to listen; it printed:\n${output}`,
      async () => {
        if (child!.exitCode !== null) throw new Error(`the server exited early:\n${output}`);
        return (await fetch(`${url}/api/health/live`).catch(() => null))?.ok ? true : undefined;
      },
      200_000,
    );

    const login = await fetch(`${url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: admin.email, password: admin.password }),
    });
    const token = ((await login.json()) as { data: { access_token: string } }).data.access_token;
    const submitted = await fetch(`${url}/api/diagnostics/self-test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ shots: 16 }),
    });
    expect(submitted.status).toBe(201);
    const jobId = ((await submitted.json()) as { data: { id: number } }).data.id;
    const [workerPid, sleeperPid] = await until('the fake worker to start', () => {
      const line = existsSync(fake.pidsFile) ? readFileSync(fake.pidsFile, 'utf8').trim() : '';
      return line ? line.split(/\s+/).map(Number) : undefined;
    });
    expect(alive(workerPid!) && alive(sleeperPid!)).toBe(true);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(alive(workerPid!), 'the worker process').toBe(false);
    expect(alive(sleeperPid!), "the worker's own child").toBe(false);

    const db = await openDatabase({ databaseUrl: null, dataDir });
    try {
      const { rows } = await db.query<{ status: string; error: string }>(
        'select status, error from jobs where id = $1',
        [jobId],
      );
      expect(rows[0]).toEqual({ status: 'Failed', error: 'Server shut down' });
    } finally {
      await db.close();
    }
  }, 240_000);
});

describe.each(MODES.filter((m) => m.database === 'pglite'))('shutdown with the $queue queue', (mode) => {
  let stack: TestStack | null = null;
  const fake = writeFakePython();
  // The stack starts in the hook (its own, longer timeout): inside the test, a start at load 20 plus the
  // job passed the test's 60 s.
  beforeAll(async () => {
    if (mode.available)
      stack = await startStack(mode, { WORKER_PYTHON: fake.python, WORKER_CONCURRENCY: '1' });
  });
  afterAll(async () => stack?.close().catch(() => undefined));

  it.skipIf(!mode.available)('records the running job Failed and kills its process group', async () => {
    if (!stack) throw new Error('no stack');
    const jobId = (await submitSelfTest(stack, { shots: 16 })).id;
    await waitForRunning(stack, jobId);
    const [workerPid, sleeperPid] = await until('the fake worker to start', () => {
      const line = existsSync(fake.pidsFile) ? readFileSync(fake.pidsFile, 'utf8').trim() : '';
      return line ? line.split(/\s+/).map(Number) : undefined;
    });
    // The database closes with everything else: the job's last status event tells what was recorded.
    const statuses: unknown[] = [];
    stack.services.jobs.subscribe(jobId, (event) => {
      if (event.type === 'status') statuses.push(event.payload);
    });
    const closing = stack;
    stack = null;
    await shutDownGracefully(closing.services, closing.app, closing.app.log);
    expect(statuses.at(-1)).toMatchObject({ status: 'Failed', reason: 'Server shut down' });
    expect(alive(workerPid!)).toBe(false);
    expect(alive(sleeperPid!)).toBe(false);
  });
});
