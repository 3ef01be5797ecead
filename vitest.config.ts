import { configDefaults, defineConfig } from 'vitest/config';

// Three suites in make test: unit (engine, renderers, codegen), server (API against PGlite and PostgreSQL, both
// queue modes) and e2e (Playwright driving Debian's Chromium against the built app).
/** Records the analysis engine's fixtures from real runs (RECORD_ANALYSIS_FIXTURES=1). */
const RECORD_FIXTURES = 'server/analysis/record-fixtures.test.ts';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'src/**/*.test.{ts,tsx}',
            'codegen/**/*.test.ts',
            'tests/contracts/**/*.test.ts',
            'tests/repo/**/*.test.ts',
          ],
          environment: 'node',
          setupFiles: ['src/app/test-support/testing-library-setup.ts'],
          // One module cache per worker, not per file: each file used to import React, the app and the
          // engine again (vitest's 'import' time, most of this project's CPU). A file that mocks a
          // module resets the cache before and after it (testing-library-setup.ts).
          isolate: false,
          // Not a speed check (benchmarks measure speed): room for a busy 2-core CI machine.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'server',
          include: ['server/**/*.test.ts'],
          // Recording fixtures trains every problem for minutes; it is its own project, never in make test.
          exclude: [...configDefaults.exclude, RECORD_FIXTURES],
          environment: 'node',
          // One migrated PGlite dumped per run; each test database starts from it (pglite-template.ts).
          globalSetup: ['server/test-support/pglite-global-setup.ts'],
          testTimeout: 60_000,
          // A stack's start (database, services, app) in beforeAll passed 60 s on a 2-core machine at load 20+.
          hookTimeout: 120_000,
          // Two files at a time: each stack has its own database, Redis prefix, DATA_DIR and port 0, and
          // most of a file's time is spent waiting (Python imports, training, polls), not computing.
          fileParallelism: true,
          maxWorkers: 2,
          // The files of a worker share its module cache: the app's modules (fastify, the engine, the
          // schemas, PGlite) are imported once per worker, not once per file (1.5 CPU-s a file). No server
          // module reads the environment at import, no file mocks a module, and each stack builds its own
          // services, so a file sees no state another left behind.
          isolate: false,
        },
      },
      {
        test: {
          name: 'record-fixtures',
          include: [RECORD_FIXTURES],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          // The server bundle and the migrated database template every product start uses, and the
          // run's one Chromium the files connect to.
          globalSetup: ['tests/e2e/global-setup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two files at a time: a file with settings of its own starts its own product on port 0 with its
          // own DATA_DIR (a copy of the database template), Redis prefix, mail sink and stand-in servers;
          // the others share their worker's product one after another (harness.ts sharedProduct). Each
          // opens its own browser contexts; most of a file's time is waiting (Python, training, timers).
          fileParallelism: true,
          maxWorkers: 2,
          // The files of a worker share its module cache (playwright-core, the harness): imported once per
          // worker, not once per file (and so is the worker's shared product). The files keep no other state
          // in shared modules: each opens its own contexts, and none mocks a module.
          isolate: false,
        },
      },
    ],
  },
});
