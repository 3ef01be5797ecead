import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { executeApplication, MODES, outputDetail, startStack, type TestStack } from '../test-support/harness';

// Vehicle routing (unlisted, issue #12): the example's settings (QAOA on the exact simulator) on its own
// sample, samples/delivery_locations.csv (synthetic: a depot and 3 stops, 14 qubits; the simulator's
// limit is 16), run to Completed through execute-job and the real worker.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

for (const mode of MODES.filter((m) => m.database === 'pglite')) {
  describe.skipIf(!mode.available)(`vehicle routing on ${mode.queue}`, () => {
    let stack: TestStack;
    let owner: { id: number; token: string };

    beforeAll(async () => {
      stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
      const email = 'routes@example.com';
      const token = await stack.userToken(email);
      const user = await stack.services.repositories.users.findByEmail(email);
      owner = { id: Number(user!.id), token };
    });
    afterAll(() => stack?.close());

    it('the example with QAOA runs to Completed with routes, the exact optimum and charts', async () => {
      const problem = stack.services.registry.getProblem('vehicle-routing');
      const { appName, appData } = createExampleAppData(problem);
      const { outputId, final } = await executeApplication(
        stack,
        owner,
        {
          problemId: 'vehicle-routing',
          appName,
          appData: appData as AppData,
          dataset: { rowCount: 4, columns: ['id', 'latitude', 'longitude', 'demand'] },
        },
        300_000,
      );
      expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

      const detail = await outputDetail<Json>(stack, owner.token, outputId);
      expect(detail.metrics.total_distance_km).toBeGreaterThan(0);
      expect(detail.metrics.total_distance_km).toBeGreaterThanOrEqual(
        detail.baseline.metrics.total_distance_km - 1e-9,
      );
      const titles = (detail.charts as Json[]).map((c) => String(c.title));
      expect(titles).toEqual(
        expect.arrayContaining([
          'QAOA routes (longitude, latitude)',
          'Exact optimum routes (longitude, latitude)',
        ]),
      );
      expect(titles.some((t) => t.startsWith('QAOA convergence'))).toBe(true);
    }, 400_000);
  });
}
