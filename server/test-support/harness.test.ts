// The harness's promise to CI: with CI set, a PostgreSQL or Redis that does not answer fails the
// server suite (requireServices throws when the harness loads, so every server file fails) instead of
// skipping its passes; without CI the skip is announced and the run goes on. Probed for real against
// an address where nothing listens.
import { describe, expect, it } from 'vitest';

import { POSTGRES_ADMIN_URL, probeServices, requireServices } from './harness';

const NOBODY = 'redis://127.0.0.1:1'; // port 1: nothing listens, the connection is refused at once
const URLS = { postgres: POSTGRES_ADMIN_URL, redis: NOBODY };

describe('test harness and missing services', () => {
  it('finds a Redis that does not answer', async () => {
    expect(await probeServices(POSTGRES_ADMIN_URL, NOBODY)).toMatchObject({ redis: false });
  });

  it('with CI set, a Redis that does not answer fails the load', async () => {
    const answered = await probeServices(POSTGRES_ADMIN_URL, NOBODY);
    expect(() => requireServices(answered, URLS, true)).toThrow(
      `CI requires every server pass: Redis at ${NOBODY} does not answer: the BullMQ pass cannot run`,
    );
  });

  it('without CI, it warns loudly and skips that pass', async () => {
    const answered = await probeServices(POSTGRES_ADMIN_URL, NOBODY);
    const warnings: string[] = [];
    requireServices(answered, URLS, false, (message) => warnings.push(message));
    expect(warnings.join('')).toMatch(
      /Redis at redis:\/\/127\.0\.0\.1:1 does not answer: the BullMQ pass is SKIPPED/,
    );
  });
});
