// The harness's promise to CI: with CI set, a PostgreSQL or Redis that does not answer fails the
// server suite instead of skipping its passes; without CI the skip is announced and the run goes on.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NOBODY = 'redis://127.0.0.1:1'; // port 1: nothing listens, the connection is refused at once

function loadHarness(env: Record<string, string | undefined>) {
  const { CI: _ci, ...inherited } = process.env;
  return spawnSync(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/test-support/harness.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...inherited, TEST_REDIS_URL: NOBODY, ...env },
  });
}

// Each case starts tsx on the whole harness: 35 to 67 s seen with another test file beside it on a loaded
// 2-core machine, so the default 60 s is too short.
describe('test harness and missing services', { timeout: 180_000 }, () => {
  it('with CI set, a Redis that does not answer fails the load', () => {
    const result = loadHarness({ CI: '1' });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('CI requires every server pass');
    expect(result.stderr).toContain(`Redis at ${NOBODY}`);
  });

  it('without CI, it warns loudly and skips that pass', () => {
    const result = loadHarness({});
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(
      /Redis at redis:\/\/127\.0\.0\.1:1 does not answer: the BullMQ pass is SKIPPED/,
    );
  });
});
