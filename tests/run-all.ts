/**
 * `make test`: every suite in order — static checks, unit, server integration (PGlite and
 * PostgreSQL, both queue modes), worker (pytest), end-to-end (Playwright + Chromium) — then one
 * summary line `N passed, N failed` covering all of them. Exits non-zero on any failure.
 *
 * A suite that runs no test fails. With the CI variable set (.ci/run sets it) a skipped test also
 * fails: the server suite skips its PostgreSQL and Redis passes when those do not answer, which is
 * announced loudly on a developer's machine but must not pass quietly in CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const VENV_BIN = path.join(ROOT, 'worker/.venv/bin');
const rows: { name: string; tally: Tally; seconds: number }[] = [];
const CI = Boolean(process.env.CI);

/** In CI every skipped test counts as failed (see the header); locally skips are shown as such. */
function strict(tally: Tally): Tally {
  if (!CI || tally.skipped === 0) return tally;
  console.error(`\n!!!!! CI: ${tally.skipped} skipped test(s) count as failed !!!!!\n`);
  return { passed: tally.passed, failed: tally.failed + tally.skipped, skipped: 0 };
}

function run(command: string, args: string[], env: Record<string, string> = {}): number {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function timed(name: string, fn: () => Tally) {
  const started = Date.now();
  console.log(`\n━━━ ${name} ━━━`);
  const tally = strict(fn());
  rows.push({ name, tally, seconds: (Date.now() - started) / 1000 });
}

/** A static check counts as one test. */
function check(name: string, command: string, args: string[]) {
  timed(name, () =>
    run(command, args) === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 },
  );
}

function vitest(project: string) {
  timed(`vitest ${project}`, () => {
    const report = path.join(ARTIFACTS, `vitest-${project}.json`);
    rmSync(report, { force: true });
    const status = run('npx', [
      'vitest',
      'run',
      '--project',
      project,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ]);
    if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numTotalTests: number;
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
      numFailedTestSuites: number;
    };
    // A file that fails to load counts as a failure even when no test in it ran.
    const failed =
      json.numFailedTests +
      (json.numFailedTests === 0 && status !== 0 ? Math.max(1, json.numFailedTestSuites) : 0);
    // A suite that finds no test at all is broken (a moved file or a wrong include), not green.
    if (json.numTotalTests === 0) return { passed: 0, failed: 1, skipped: 0 };
    return { passed: json.numPassedTests, failed, skipped: json.numPendingTests + json.numTodoTests };
  });
}

function pytest() {
  timed('pytest worker', () => {
    const report = path.join(ARTIFACTS, 'pytest-worker.xml');
    rmSync(report, { force: true });
    const status = run(path.join(VENV_BIN, 'python'), [
      '-m',
      'pytest',
      'worker/tests',
      '-q',
      `--junitxml=${report}`,
    ]);
    if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
    const xml = readFileSync(report, 'utf8');
    const attr = (name: string) =>
      Number(new RegExp(`<testsuite[^>]*\\b${name}="(\\d+)"`).exec(xml)?.[1] ?? 0);
    const total = attr('tests');
    const failed = attr('failures') + attr('errors');
    const skipped = attr('skipped');
    return {
      passed: total - failed - skipped,
      // Exit status 5 means pytest collected no test: a failure too.
      failed: failed || (status !== 0 || total === 0 ? 1 : 0),
      skipped,
    };
  });
}

mkdirSync(ARTIFACTS, { recursive: true });
const started = Date.now();
check('typecheck (tsc strict)', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
check('lint (eslint)', 'npx', ['eslint', '.', '--max-warnings', '0']);
check('format (prettier)', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']);
check('lint (ruff check)', path.join(VENV_BIN, 'ruff'), ['check', 'worker']);
check('format (ruff format)', path.join(VENV_BIN, 'ruff'), ['format', '--check', 'worker']);
check('typecheck (mypy worker)', path.join(VENV_BIN, 'mypy'), [
  '--config-file',
  'worker/pyproject.toml',
  'worker/qmlstudio_worker',
]);
check('codegen fresh', 'npx', ['tsx', 'codegen/generate-types.ts', '--check']);
check('schemas:check', 'npx', ['tsx', 'codegen/check-schemas.ts']);
vitest('unit');
vitest('server');
pytest();
vitest('e2e');

const total = rows.reduce(
  (sum, row) => ({
    passed: sum.passed + row.tally.passed,
    failed: sum.failed + row.tally.failed,
    skipped: sum.skipped + row.tally.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log('\n━━━ summary ━━━');
for (const row of rows) {
  const { passed, failed, skipped } = row.tally;
  console.log(
    `${failed ? '✗' : '✓'} ${row.name.padEnd(26)} ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}  (${row.seconds.toFixed(1)} s)`,
  );
}
console.log(`total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(
  `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(total.failed > 0 ? 1 : 0);
