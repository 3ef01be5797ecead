import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import {
  bearer,
  executeApplication,
  MODES,
  outputDetail,
  startStack,
  type TestStack,
} from '../test-support/harness';

// Repeated seeds through the REAL app and worker: a fraud Random Forest saved with Repeats 2 runs as
// one output whose detail carries each metric's mean, sd and 95% interval over seeds 42 and 43 (the
// shown metrics are the means) and each repeat's baseline; Repeats 11 is refused on save, naming the
// field.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;

describe('repeated seeds', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '300' });
    const email = 'repeats@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a Repeats 2 run completes as one output with the statistics in its detail', async () => {
    const problem = stack.services.registry.getProblem('fraud-detection');
    const { appData } = createExampleAppData(problem);
    const configurations = (appData as Json).model_configurations as Json;
    for (const key of Object.keys(configurations)) delete configurations[key];
    Object.assign(configurations, {
      model_type: 'Classical',
      method: 'Random Forest',
      device: 'CPU',
      threshold_rule: 'f1',
      repeats: 2,
    });
    const { outputId, final } = await executeApplication(
      stack,
      owner,
      { problemId: 'fraud-detection', appName: 'Repeats / test', appData: appData as AppData },
      240_000,
    );
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

    const detail = await outputDetail<Json>(stack, owner.token, outputId);
    const repeats = detail.output_data.repeats as Json;
    expect(repeats).toMatchObject({ count: 2, seeds: [42, 43], confidence: 0.95 });
    expect(repeats.runs).toHaveLength(2);
    expect(Object.keys(repeats.metrics).length).toBeGreaterThan(0);
    for (const [name, stat] of Object.entries(repeats.metrics as Record<string, Json>)) {
      const values = repeats.runs.map((r: Json) => r.metrics[name]) as (number | null)[];
      expect(stat.values).toEqual(values);
      if (values.some((v) => v === null)) continue;
      const [a, b] = values as [number, number];
      expect(stat.mean).toBeCloseTo((a + b) / 2, 12);
      expect(stat.sd).toBeCloseTo(Math.abs(a - b) / Math.SQRT2, 12);
      // t(0.975, 1) = 12.7062...: the interval of two seeds is wide, as it should be.
      expect(stat.ci_high - stat.mean).toBeCloseTo((12.706204736 * stat.sd) / Math.SQRT2, 6);
      expect(detail.metrics[name]).toBeCloseTo(stat.mean, 12);
    }
    expect(repeats.baseline.name).toBe(detail.baseline.name);
    for (const run of repeats.runs as Json[])
      expect(Object.keys(run.baseline_metrics).length).toBeGreaterThan(0);
    const logs = (detail.output_logs as Json[]).map((l) => l.message as string);
    expect(logs).toContain('Repeat 1 of 2: seed 42');
    expect(logs).toContain('Repeat 2 of 2: seed 43');

    // Above 10 the save is refused, naming the field.
    const refused = await stack.app.inject({
      method: 'PUT',
      url: '/api/applications/update-app-data',
      headers: bearer(owner.token),
      payload: {
        application_id: detail.application_id,
        user_id: owner.id,
        app_data: { ...appData, model_configurations: { ...configurations, repeats: 11 } },
      },
    });
    expect(refused.statusCode).toBe(400);
    const body = refused.json() as { errors: { field: string; message: string }[] };
    expect(body.errors).toContainEqual(
      expect.objectContaining({
        field: '/app_data/model_configurations/repeats',
        message: 'Repeats must be at most 10',
      }),
    );
  }, 300_000);
});
