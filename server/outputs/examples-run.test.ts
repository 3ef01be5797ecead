import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, mapJobRequest, type AppData } from '../../src/engine';
import { bearer, MODES, startStack, waitForFinal, type TestStack } from '../test-support/harness';

// Issue #10's "done when": each financial example, with the example's own settings (quantum ones
// included), runs to Completed through execute-job and the REAL worker, in the embedded default and
// under BullMQ on the local Redis, and its output carries metrics, a baseline and charts.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const EXAMPLES = [
  'stock-price-prediction',
  'portfolio-optimization',
  'fraud-detection',
  'demand-forecasting',
] as const;
/** The problems whose outputs keep a model for inference. */
const WITH_MODEL = new Set(['stock-price-prediction', 'fraud-detection', 'demand-forecasting']);

for (const mode of MODES.filter((m) => m.database === 'pglite')) {
  describe.skipIf(!mode.available)(`the financial examples on ${mode.queue}`, () => {
    let stack: TestStack;
    let owner: { id: number; token: string };

    beforeAll(async () => {
      stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
      const token = await stack.userToken('examples@example.com');
      const { rows } = await stack.services.db.query<{ id: number }>(
        'select id from users where email = $1',
        ['examples@example.com'],
      );
      owner = { id: Number(rows[0]!.id), token };
    });
    afterAll(() => stack?.close());

    for (const problemId of EXAMPLES) {
      it(`${problemId}: the example runs to Completed with metrics, a baseline and charts`, async () => {
        const problem = stack.services.registry.getProblem(problemId);
        const { appName, appData } = createExampleAppData(problem);
        const { rows } = await stack.services.db.query<{ id: number }>(
          `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
           returning id`,
          [owner.id, appName, problemId, JSON.stringify(appData)],
        );
        const appId = Number(rows[0]!.id);
        const url = String((appData as Json).dataset.url);
        const sample = stack.services.samples.find(path.basename(url))!;
        const { body } = mapJobRequest(problem, appData as AppData, {
          rowCount: sample.rows,
          columns: [...sample.columns],
          applicationId: appId,
          userId: owner.id,
        });
        const reply = await stack.app.inject({
          method: 'POST',
          url: `/api/${problemId}/execute-job/${owner.id}`,
          headers: bearer(owner.token),
          payload: body,
        });
        expect(reply.statusCode, reply.body).toBe(201);
        const outputId = Number((reply.json() as Json).data.output_id);
        const final = await waitForFinal(stack, outputId, 480_000);
        expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

        const detail = (
          (
            await stack.app.inject({
              url: `/api/application-outputs/${outputId}/detail`,
              headers: bearer(owner.token),
            })
          ).json() as Json
        ).data;
        expect(Object.keys(detail.metrics).length).toBeGreaterThan(0);
        expect(Object.keys(detail.baseline.metrics).length).toBeGreaterThan(0);
        expect(detail.charts.length).toBeGreaterThanOrEqual(3);
        expect(detail.dataset).toMatchObject({ sha256: sample.sha256 });
        if (WITH_MODEL.has(problemId)) expect(detail.trained_model_path).toMatch(/^outputs\//);
      });
    }
  });
}
