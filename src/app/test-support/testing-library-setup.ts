import { readFileSync } from 'node:fs';

import { configure } from '@testing-library/react';
import { afterAll, expect, vi } from 'vitest';

// findBy*/waitFor give up after 1 s by default: too short for a 2-core CI machine running the suites
// next to each other (a profile test timed out there waiting for its token fetch). Not a speed check.
configure({ asyncUtilTimeout: 5_000 });

// The unit project shares evaluated modules between the files a worker runs (isolate: false in
// vitest.config.ts: importing the app once per worker instead of once per file). A file that mocks a
// module (vi.mock, vi.doMock) needs its mocks to reach modules evaluated afresh, not ones another file
// evaluated with the real module or its own mock, and must leave no module holding its mocks to the
// next file: such a file starts and ends with an empty module cache, as every file did before.
const testPath = expect.getState().testPath;
if (testPath && /\bvi\.(?:mock|doMock)\(/.test(readFileSync(testPath, 'utf8'))) {
  vi.resetModules();
  afterAll(() => {
    vi.resetModules();
  });
}
