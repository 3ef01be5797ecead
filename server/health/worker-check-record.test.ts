import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeFingerprint, WorkerRuntimeCheck } from './worker-runtime';

// WORKER_CHECK_RECORD: a passing worker runtime check is kept in a file, and a start within the check
// interval, with the same Python, venv packages and worker package, takes it as its first check instead
// of starting Python (the real one imports torch and qiskit: about 5 CPU-s). Anything else checks.

const dirs: string[] = [];
const checks: WorkerRuntimeCheck[] = [];
afterEach(async () => {
  await Promise.all(checks.splice(0).map((check) => check.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A venv (bin/python, lib/python3.11/site-packages) whose `health` counts its launches and passes unless told. */
function fakeVenv() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-check-record-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'bin'));
  const sitePackages = path.join(dir, 'lib', 'python3.11', 'site-packages');
  mkdirSync(sitePackages, { recursive: true });
  const python = path.join(dir, 'bin', 'python');
  const launches = path.join(dir, 'launches');
  const broken = path.join(dir, 'broken');
  writeFileSync(
    python,
    `#!/bin/sh
echo health >> '${launches}'
if [ -f '${broken}' ]; then
  echo "ModuleNotFoundError: No module named 'torch'" >&2
  exit 1
fi
echo '{"ok": true, "versions": {"fake": "1"}}'
`,
  );
  chmodSync(python, 0o755);
  return {
    python,
    sitePackages,
    record: path.join(dir, 'data', 'worker-check.json'),
    launches: () => (existsSync(launches) ? readFileSync(launches, 'utf8').trim().split('\n').length : 0),
    breakIt: () => writeFileSync(broken, ''),
  };
}

function check(python: string, record: string | null, intervalMs = 60_000) {
  const made = new WorkerRuntimeCheck(python, { record, intervalMs });
  checks.push(made);
  return made;
}

describe('the kept worker runtime check (WORKER_CHECK_RECORD)', () => {
  it('a start within the interval takes the kept passing check without starting Python', async () => {
    const venv = fakeVenv();
    const first = check(venv.python, venv.record);
    expect(await first.start()).toEqual({ ok: true, versions: { fake: '1' } });
    expect(venv.launches()).toBe(1);
    const checkedAt = first.snapshot()!.checkedAt;
    await first.stop();

    const restarted = check(venv.python, venv.record);
    const seen: boolean[] = [];
    restarted.onChange((result) => seen.push(result.ok));
    expect(await restarted.start()).toEqual({ ok: true, versions: { fake: '1' } });
    expect(venv.launches()).toBe(1);
    // It says when the check was really made, and the listeners (the server's log) hear it as a first check.
    expect(restarted.snapshot()!.checkedAt.getTime()).toBe(checkedAt.getTime());
    expect(seen).toEqual([true]);
    expect(await restarted.jobRefusal()).toBeNull();
  });

  it('checks again when the kept check is older than the interval', async () => {
    const venv = fakeVenv();
    await check(venv.python, venv.record, 50).start();
    await new Promise((resolve) => setTimeout(resolve, 80));
    await check(venv.python, venv.record, 50).start();
    expect(venv.launches()).toBeGreaterThanOrEqual(2);
  });

  it('checks again when the venv’s packages changed since (an install or removal)', async () => {
    const venv = fakeVenv();
    await check(venv.python, venv.record).start();
    const before = runtimeFingerprint(venv.python);
    mkdirSync(path.join(venv.sitePackages, 'torch'));
    const later = new Date(Date.now() + 5_000);
    utimesSync(venv.sitePackages, later, later); // the directory's time, as an install several seconds on
    expect(runtimeFingerprint(venv.python)).not.toBe(before);
    await check(venv.python, venv.record).start();
    expect(venv.launches()).toBe(2);
  });

  it('a failing check forgets the kept one, and the next start checks and refuses jobs', async () => {
    const venv = fakeVenv();
    const first = check(venv.python, venv.record);
    await first.start();
    expect(existsSync(venv.record)).toBe(true);
    venv.breakIt();
    expect((await first.refresh()).ok).toBe(false);
    expect(existsSync(venv.record)).toBe(false);

    const restarted = check(venv.python, venv.record);
    expect((await restarted.start()).error).toMatch(/No module named 'torch'/);
    expect(venv.launches()).toBe(3);
    expect(await restarted.jobRefusal()).toMatch(/No module named 'torch'/);
  });

  it('another Python does not take the kept check, and without a record every start checks', async () => {
    const venv = fakeVenv();
    const other = fakeVenv();
    await check(venv.python, venv.record).start();
    await check(other.python, venv.record).start();
    expect(other.launches()).toBe(1);
    await check(venv.python, null).start();
    await check(venv.python, null).start();
    expect(venv.launches()).toBe(3);
  });
});
