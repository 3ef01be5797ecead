// The self-test route and the worker take their params from one schema
// (worker/qmlstudio_worker/schemas/self-test.params.schema.json, through src/generated/worker-contract.ts):
// every bound the worker's file states is the route's bound too, and the same values pass on both sides
// (before, the route refused seeds above 2147483647 and null, which the worker accepts).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';

const workerSchema = JSON.parse(
  readFileSync(
    new URL('../../worker/qmlstudio_worker/schemas/self-test.params.schema.json', import.meta.url),
    'utf8',
  ),
) as {
  properties: {
    shots: { minimum: number; maximum: number };
    seed: { type: ['integer', 'null']; minimum: number; maximum: number };
    delay_seconds: { minimum: number; maximum: number };
  };
};
const { shots, seed, delay_seconds: delay } = workerSchema.properties;

describe("POST /api/diagnostics/self-test takes the worker's params schema", () => {
  let stack: TestStack;
  beforeAll(async () => {
    // The jobs need not run: a worker that cannot start keeps the test about the route alone.
    stack = await startStack(MODES[0]!, { WORKER_PYTHON: '/bin/false' });
  });
  afterAll(async () => stack?.close());

  const post = (payload: unknown) =>
    stack.app.inject({
      method: 'POST',
      url: '/api/diagnostics/self-test',
      headers: { ...bearer(stack.adminToken), 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });

  it.each([
    { shots: shots.minimum },
    { shots: shots.maximum },
    { seed: seed.minimum },
    { seed: seed.maximum },
    { seed: null },
    { delay_seconds: delay.maximum },
  ])('accepts what the worker accepts: %j', async (body) => {
    const reply = await post(body);
    expect(reply.statusCode).toBe(201);
    const { params } = (reply.json() as { data: { params: Record<string, unknown> } }).data;
    expect(params).toMatchObject(body);
  });

  it.each([
    [{ shots: shots.minimum - 1 }, '/shots'],
    [{ shots: shots.maximum + 1 }, '/shots'],
    [{ seed: seed.minimum - 1 }, '/seed'],
    [{ seed: seed.maximum + 1 }, '/seed'],
    [{ delay_seconds: delay.maximum + 1 }, '/delay_seconds'],
    [{ colour: 'red' }, ''],
  ])('refuses what the worker refuses: %j', async (body, field) => {
    const reply = await post(body);
    expect(reply.statusCode).toBe(400);
    const fields = ((reply.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);
    if (field) expect(fields).toContain(field);
  });

  it('records the schema defaults with the job', async () => {
    const reply = await post({});
    expect(reply.statusCode).toBe(201);
    expect((reply.json() as { data: { params: unknown } }).data.params).toEqual({
      shots: 1024,
      seed: null,
      delay_seconds: 0,
    });
  });
});
