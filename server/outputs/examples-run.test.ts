import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { executeApplication, MODES, outputDetail, startStack, type TestStack } from '../test-support/harness';

// Each financial example, with the example's own settings (quantum ones
// included), runs to Completed through execute-job and the REAL worker in the embedded default, and its
// output carries metrics, a baseline and charts. Under BullMQ on the local Redis only the fraud VQC runs
// again: the trainings do not depend on the queue, a BullMQ job to Completed with its model is
// outputs.test.ts's (demand forecasting, both databases), and the VQC is the example that runs longest
// (the one most likely to outlive a renewal of the queue's job lock).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const EXAMPLES = [
  'stock-price-prediction',
  'portfolio-optimization',
  'fraud-detection',
  'demand-forecasting',
] as const;
/** The examples run again under BullMQ (see the header). */
const UNDER_BULLMQ = new Set<string>(['fraud-detection']);
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

    for (const problemId of EXAMPLES.filter((id) => mode.queue === 'in-process' || UNDER_BULLMQ.has(id))) {
      it(`${problemId}: the example runs to Completed with metrics, a baseline and charts`, async () => {
        const problem = stack.services.registry.getProblem(problemId);
        const { appName, appData } = createExampleAppData(problem);
        const { outputId, final } = await executeApplication(
          stack,
          owner,
          {
            problemId,
            appName,
            appData: appData as AppData,
          },
          480_000,
        );
        expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

        const detail = await outputDetail<Json>(stack, owner.token, outputId);
        expect(Object.keys(detail.metrics).length).toBeGreaterThan(0);
        expect(Object.keys(detail.baseline.metrics).length).toBeGreaterThan(0);
        expect(detail.charts.length).toBeGreaterThanOrEqual(3);
        const sample = stack.services.samples.find(
          String((appData as { dataset?: { url?: string } }).dataset?.url)
            .split('/')
            .pop()!,
        );
        expect(detail.dataset).toMatchObject({ sha256: sample!.sha256 });
        if (WITH_MODEL.has(problemId)) expect(detail.trained_model_path).toMatch(/^outputs\//);
        // The job's own deadline above, not the suite's 60 s: the fraud VQC passed 60 s on a loaded machine.
      }, 500_000);
    }
  });
}
