import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ONE_MODE, startStack, submitSelfTest, waitForFinal, type TestStack } from '../test-support/harness';
import { RUNTIME_BROKEN, WorkerRuntimeCheck } from './worker-runtime';

// The server listens before its first worker runtime check has ended (server/main.ts starts the check
// without waiting): until the check ends a job stays Queued and no worker is started; a passing check
// lets it run; a failing one (a broken venv) fails it with the check's error instead of a worker crash,
// /api/health says so, and a later passing check (a repaired venv) lets jobs run again.

/** A worker Python whose `health` waits for a file and then passes or fails as told; `run` notes its launch. */
function controllablePython() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-gate-python-'));
  const python = path.join(dir, 'python');
  const release = path.join(dir, 'release');
  const broken = path.join(dir, 'broken');
  const launches = path.join(dir, 'launches');
  writeFileSync(
    python,
    `#!/bin/sh
case "$3" in
  health)
    while [ ! -f '${release}' ]; do sleep 0.05; done
    if [ -f '${broken}' ]; then
      echo "ModuleNotFoundError: No module named 'torch'" >&2
      exit 1
    fi
    echo '{"ok": true, "versions": {"gate-python": "1"}}'
    ;;
  run)
    cat > /dev/null
    echo launched >> '${launches}'
    echo '{"type": "progress", "percent": 1, "stage": "gate run"}'
    exit 3
    ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(python, 0o755);
  return {
    python,
    release: () => writeFileSync(release, ''),
    breakIt: () => writeFileSync(broken, ''),
    repair: () => rmSync(broken),
    launchCount: () => (existsSync(launches) ? readFileSync(launches, 'utf8').trim().split('\n').length : 0),
  };
}

const jobStatus = async (stack: TestStack, id: number) =>
  (
    (
      await stack.app.inject({
        url: `/api/jobs/${id}`,
        headers: { authorization: `Bearer ${stack.adminToken}` },
      })
    ).json() as { data: { job: { status: string } } }
  ).data.job.status;

const health = async (stack: TestStack) => {
  const reply = await stack.app.inject({ url: '/api/health' });
  return { code: reply.statusCode, body: reply.json() as { worker: string; status: string } };
};

describe('jobs and the worker runtime check at start', () => {
  let stack: TestStack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  const start = async (python: string) => {
    stack = await startStack(ONE_MODE, { WORKER_PYTHON: python, WORKER_WARM: 'false' });
    void stack.services.runtime.start(); // as server/main.ts does: not awaited
    return stack;
  };

  it('keeps a job Queued without starting a worker until the first check passes, then runs it', async () => {
    const fake = controllablePython();
    const s = await start(fake.python);
    const job = await submitSelfTest(s);
    expect((await health(s)).body.worker).toBe('not checked yet');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await jobStatus(s, job.id)).toBe('queued');
    expect(fake.launchCount()).toBe(0);

    fake.release();
    await waitForFinal(s, job.id, 20_000);
    expect(fake.launchCount()).toBe(1);
    expect(await health(s)).toMatchObject({ code: 200, body: { worker: 'ok' } });
  });

  it('fails jobs with the failed check reason, without a worker, and reports it at /api/health', async () => {
    const fake = controllablePython();
    fake.breakIt();
    const s = await start(fake.python);
    const job = await submitSelfTest(s);
    fake.release();
    const final = await waitForFinal(s, job.id, 20_000);
    expect(final.job.status.toLowerCase()).toBe('failed');
    const failed = final.events.find((event) => event.payload.reason !== undefined);
    expect(String(failed?.payload.reason)).toContain(RUNTIME_BROKEN);
    expect(String(failed?.payload.reason)).toContain("No module named 'torch'");
    expect(fake.launchCount()).toBe(0);
    const { code, body } = await health(s);
    expect(code).toBe(503);
    expect(body.worker).toContain("No module named 'torch'");

    // Repaired: the next check (every 30 s in the server; asked for here) passes and jobs run again.
    fake.repair();
    expect((await s.services.runtime.refresh()).ok).toBe(true);
    const next = await submitSelfTest(s);
    await waitForFinal(s, next.id, 20_000);
    expect(fake.launchCount()).toBe(1);
  });

  it('refuses no job when the check only ran out of time (a slow machine, not a broken Python)', async () => {
    const fake = controllablePython(); // never released: the check hangs until killed
    const runtime = new WorkerRuntimeCheck(fake.python, { timeoutMs: 300, firstTimeoutMs: 300 });
    try {
      const result = await runtime.start();
      expect(result).toMatchObject({ ok: false, timedOut: true });
      expect(result.error).toContain('did not answer within 0.3 s');
      expect(await runtime.jobRefusal()).toBeNull();
    } finally {
      await runtime.stop();
    }
  });
});
