import { defineConfig } from 'vitest/config';

// Three suites: unit (engine, renderers, codegen), server (API against PGlite and PostgreSQL, both
// queue modes) and e2e (Playwright driving Debian's Chromium against the built app).
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
          // Not a speed check (benchmarks measure speed): room for a busy 2-core CI machine.
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'server',
          include: ['server/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
