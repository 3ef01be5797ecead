/**
 * `make test`: every suite — static checks, unit, server integration (PGlite and PostgreSQL, both
 * queue modes), worker (pytest), end-to-end (Playwright + Chromium) — then one summary line
 * `N passed, N failed` covering all of them. Exits non-zero on any failure.
 *
 * A suite that runs no test fails. With the CI variable set (.ci/run sets it) a skipped test also
 * fails: the server suite skips its PostgreSQL and Redis passes when those do not answer, which is
 * announced loudly on a developer's machine but must not pass quietly in CI.
 *
 * Everything runs in two lanes side by side, so a 2-core machine is kept busy to the end: the first
 * lane prints live, the other's output is printed whole as each of its steps ends (and kept in
 * tests/artifacts/<lane>.log). The summary lists every step in the order written here.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  /** Names of the failed tests (file > title: first line of the message), printed again in the summary. */
  failures?: string[];
}

const ROOT = path.resolve(import.meta.dirname, '..');
const ARTIFACTS = path.join(ROOT, 'tests/artifacts');
const VENV_BIN = path.join(ROOT, 'worker/.venv/bin');
const rows: { name: string; tally: Tally; seconds: number; index: number }[] = [];
/** Steps in the order they are listed, which the summary keeps whatever order they end in. */
let listed = 0;
const CI = Boolean(process.env.CI);

/** In CI every skipped test counts as failed (see the header); locally skips are shown as such. */
function strict(tally: Tally): Tally {
  if (!CI || tally.skipped === 0) return tally;
  console.error(`\n!!!!! CI: ${tally.skipped} skipped test(s) count as failed !!!!!\n`);
  return { ...tally, failed: tally.failed + tally.skipped, skipped: 0 };
}

type Step = () => Promise<void>;

/** Runs a command; `log` set: its output goes to that file instead of the terminal. Resolves its exit status. */
function run(command: string, args: string[], log?: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: process.env,
    });
    if (log) {
      const out = createWriteStream(log);
      child.stdout!.pipe(out, { end: false });
      child.stderr!.pipe(out, { end: false });
      child.on('close', (code) => out.end(() => resolve(code ?? 1)));
    } else {
      child.on('close', (code) => resolve(code ?? 1));
    }
    child.on('error', () => resolve(1));
  });
}

/** The log file of a step run beside another, or undefined for the step that prints live. */
let captureTo: string | undefined;

function timed(name: string, fn: (log?: string) => Promise<Tally>): Step {
  const index = listed++;
  const log = captureTo;
  return async () => {
    const started = Date.now();
    if (!log) console.log(`\n━━━ ${name} ━━━`);
    const tally = strict(await fn(log));
    const seconds = (Date.now() - started) / 1000;
    if (log) console.log(`\n━━━ ${name} (ran beside another step) ━━━\n${readFileSync(log, 'utf8')}`);
    rows.push({ name, tally, seconds, index });
  };
}

/** Runs steps at the same time: the first prints live, the others into tests/artifacts/<name>.log, printed when each ends. */
async function together(...steps: [string, () => Step][]) {
  await Promise.all(
    steps.map(([name, make], index) => {
      captureTo = index === 0 ? undefined : path.join(ARTIFACTS, `${name.replace(/[^\w]+/g, '-')}.log`);
      const step = make();
      captureTo = undefined;
      return step();
    }),
  );
}

/** A static check counts as one test. */
function check(name: string, command: string, args: string[]): [string, () => Step] {
  return [
    name,
    () =>
      timed(name, async (log) =>
        (await run(command, args, log)) === 0
          ? { passed: 1, failed: 0, skipped: 0 }
          : { passed: 0, failed: 1, skipped: 0 },
      ),
  ];
}

/** Static checks one after another (one lane of a group). */
function lane(name: string, checks: [string, () => Step][]): [string, () => Step] {
  return [
    name,
    () => {
      const steps = checks.map(([, make]) => make());
      return async () => {
        for (const step of steps) await step();
      };
    },
  ];
}

function vitest(project: string): [string, () => Step] {
  const name = `vitest ${project}`;
  return [
    name,
    () =>
      timed(name, async (log) => {
        const report = path.join(ARTIFACTS, `vitest-${project}.json`);
        rmSync(report, { force: true });
        const status = await run(
          'npx',
          [
            'vitest',
            'run',
            '--project',
            project,
            '--reporter=default',
            '--reporter=json',
            `--outputFile.json=${report}`,
          ],
          log,
        );
        if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
        const json = JSON.parse(readFileSync(report, 'utf8')) as {
          numTotalTests: number;
          numPassedTests: number;
          numFailedTests: number;
          numPendingTests: number;
          numTodoTests: number;
          numFailedTestSuites: number;
          testResults: {
            name: string;
            message?: string;
            assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
          }[];
        };
        const failures = json.testResults.flatMap((file) => {
          const where = path.relative(ROOT, file.name);
          const tests = file.assertionResults.filter((test) => test.status === 'failed');
          if (tests.length === 0 && file.message) return [`${where}: ${firstLine(file.message)}`];
          return tests.map(
            (test) => `${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0] ?? '')}`,
          );
        });
        // A file that fails to load counts as a failure even when no test in it ran.
        const failed =
          json.numFailedTests +
          (json.numFailedTests === 0 && status !== 0 ? Math.max(1, json.numFailedTestSuites) : 0);
        // A suite that finds no test at all is broken (a moved file or a wrong include), not green.
        if (json.numTotalTests === 0) return { passed: 0, failed: 1, skipped: 0 };
        return {
          passed: json.numPassedTests,
          failed,
          skipped: json.numPendingTests + json.numTodoTests,
          failures,
        };
      }),
  ];
}

/** The first non-empty line of a failure message, cut to fit a summary line. */
function firstLine(message: string): string {
  const line = message.split('\n').find((text) => text.trim() !== '') ?? '';
  return line.trim().slice(0, 240);
}

function pytest(): [string, () => Step] {
  const name = 'pytest worker';
  return [
    name,
    () =>
      timed(name, async (log) => {
        const report = path.join(ARTIFACTS, 'pytest-worker.xml');
        rmSync(report, { force: true });
        const status = await run(
          path.join(VENV_BIN, 'python'),
          ['-m', 'pytest', 'worker/tests', '-q', `--junitxml=${report}`],
          log,
        );
        if (!existsSync(report)) return { passed: 0, failed: 1, skipped: 0 };
        const xml = readFileSync(report, 'utf8');
        const attr = (field: string) =>
          Number(new RegExp(`<testsuite[^>]*\\b${field}="(\\d+)"`).exec(xml)?.[1] ?? 0);
        const total = attr('tests');
        const failed = attr('failures') + attr('errors');
        const skipped = attr('skipped');
        const failures = [
          ...xml.matchAll(
            /<testcase[^>]*classname="([^"]*)"[^>]*name="([^"]*)"[^>]*>\s*<(?:failure|error)[^>]*message="([^"]*)"/g,
          ),
        ].map(([, where, title, message]) => `${where} > ${title}: ${firstLine(message ?? '')}`);
        return {
          failures,
          passed: total - failed - skipped,
          // Exit status 5 means pytest collected no test: a failure too.
          failed: failed || (status !== 0 || total === 0 ? 1 : 0),
          skipped,
        };
      }),
  ];
}

mkdirSync(ARTIFACTS, { recursive: true });
const started = Date.now();
// Two lanes side by side for the whole run: every suite is CPU-bound on a 2-core machine, so what
// matters is that both cores stay busy until the end, not which suite runs with which. A quiet
// clean-clone run with the build in lane B (wall seconds, each beside the other lane): tsc 28,
// eslint 34, prettier 23, codegen 12, schemas 3, ruff 0.2, mypy 24, unit 105 (its precompiled.test
// compiled the validators the build was writing at the same time), server 562 | build 10, pytest
// 170, e2e 585: lane A 790, lane B 765. With the build in lane A before unit and mypy in lane B:
// lane A 626 (unit 74, server 456), lane B 740 (mypy 44, pytest 214, e2e 481). Hence mypy in lane A
// then. With shorter e2e and server suites (a clean-clone run, mypy in lane A): lane A 704 (checks 133,
// unit 123, server 449), lane B 660 (pytest 171, e2e 489 with a 30-s failure timeout): mypy in B again.
// With the e2e files that need no settings of their own sharing a product per worker: lane A 574 (checks
// 78, build 6, unit 65, server 425), lane B 561 (mypy 21, pytest 131, e2e 409).
await together(
  lane('lane A (checks, build, unit, server)', [
    check('typecheck (tsc strict)', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']),
    check('lint (eslint)', 'npx', ['eslint', '.', '--max-warnings', '0']),
    check('format (prettier)', 'npx', ['prettier', '--check', '.', '--log-level', 'warn']),
    check('codegen fresh', 'npx', ['tsx', 'codegen/generate-types.ts', '--check']),
    check('schemas:check', 'npx', ['tsx', 'codegen/check-schemas.ts']),
    check('lint (ruff check)', path.join(VENV_BIN, 'ruff'), ['check', 'worker']),
    check('format (ruff format)', path.join(VENV_BIN, 'ruff'), ['format', '--check', 'worker']),
    // The web build here, not before both lanes (only e2e needs dist/, long after): it also writes the
    // precompiled validators the unit suite's precompiled.test then reuses instead of compiling them again.
    check('web build (vite)', 'make', ['--no-print-directory', 'build']),
    vitest('unit'),
    vitest('server'),
  ]),
  lane('lane B (mypy, pytest, e2e)', [
    check('typecheck (mypy worker)', path.join(VENV_BIN, 'mypy'), [
      '--config-file',
      'worker/pyproject.toml',
      'worker/qmlstudio_worker',
    ]),
    pytest(),
    vitest('e2e'),
  ]),
);

const total = rows.reduce(
  (sum, row) => ({
    passed: sum.passed + row.tally.passed,
    failed: sum.failed + row.tally.failed,
    skipped: sum.skipped + row.tally.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log('\n━━━ summary ━━━');
for (const row of rows.sort((a, b) => a.index - b.index)) {
  const { passed, failed, skipped } = row.tally;
  console.log(
    `${failed ? '✗' : '✓'} ${row.name.padEnd(26)} ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}  (${row.seconds.toFixed(1)} s)`,
  );
  // The failed tests again, so the last lines of a CI log say what broke.
  for (const failure of row.tally.failures ?? []) console.log(`    ✗ ${failure}`);
}
console.log(`total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(
  `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`,
);
process.exit(total.failed > 0 ? 1 : 0);
