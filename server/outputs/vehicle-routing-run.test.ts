import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, mapJobRequest, type AppData } from '../../src/engine';
import { bearer, ONE_MODE, startStack, waitForFinal, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

// Vehicle routing (unlisted): the example's settings (QAOA on the exact simulator) run to
// Completed through execute-job and the real worker. The test uploads its own depot and 3 stops (14 qubits,
// the simulator's limit is 16), which also covers an uploaded dataset on this path; the shipped synthetic
// sample (samples/delivery_locations.csv) has the same shape. One mode, PGlite with the in-process queue: the
// QAOA does not depend on the queue, and a BullMQ job to Completed with its results is outputs.test.ts's
// (demand forecasting, every mode).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const STOPS_CSV =
  'id,latitude,longitude,demand\n1,52.52,13.405,0\n2,52.53,13.42,30\n3,52.51,13.38,40\n4,52.50,13.43,20\n';

for (const mode of [ONE_MODE]) {
  describe.skipIf(!mode.available)(`vehicle routing on ${mode.queue}`, () => {
    let stack: TestStack;
    let owner: { id: number; name: string; email: string; token: string };

    beforeAll(async () => {
      stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
      const email = 'routes@example.com';
      const token = await stack.userToken(email);
      const user = await stack.services.repositories.users.findByEmail(email);
      owner = { id: Number(user!.id), name: user!.name, email, token };
    });
    afterAll(() => stack?.close());

    it('the example with QAOA runs to Completed with routes, the exact optimum and charts', async () => {
      const upload = fileUploadBody(STOPS_CSV, { filename: 'stops.csv' });
      const uploaded = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/${encodeURIComponent(owner.name)}/${encodeURIComponent(owner.email)}`,
        headers: { ...bearer(owner.token), ...upload.headers },
        payload: upload.payload,
      });
      expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);
      const url = String((uploaded.json() as Json).url);

      const problem = stack.services.registry.getProblem('vehicle-routing');
      const example = createExampleAppData(problem);
      const appData = {
        ...(example.appData as Json),
        dataset: { kind: 'csv', name: 'stops.csv', url },
      } as AppData;
      const { rows } = await stack.services.db.query<{ id: number }>(
        `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
         returning id`,
        [owner.id, example.appName, 'vehicle-routing', JSON.stringify(appData)],
      );
      const { body } = mapJobRequest(problem, appData, {
        rowCount: 4,
        columns: ['id', 'latitude', 'longitude', 'demand'],
        applicationId: Number(rows[0]!.id),
        userId: owner.id,
      });
      expect(body).toMatchObject({ model: 'QAOA', num_vehicles: 2, depot_index: 1 });
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/vehicle-routing/execute-job/${owner.id}`,
        headers: bearer(owner.token),
        payload: body,
      });
      expect(reply.statusCode, reply.body).toBe(201);
      const outputId = Number((reply.json() as Json).data.output_id);
      const final = await waitForFinal(stack, outputId, 300_000);
      expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

      const detail = (
        (
          await stack.app.inject({
            url: `/api/application-outputs/${outputId}/detail`,
            headers: bearer(owner.token),
          })
        ).json() as Json
      ).data;
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
