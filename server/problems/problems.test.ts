import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, setFieldValue } from '../../src/engine';
import { bearer, startStack, type TestStack } from '../test-support/harness';

describe('problems on the server (same engine as the browser)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
  });
  afterAll(async () => stack?.close());

  const check = (id: string, body: object, token = stack.adminToken) =>
    stack.app.inject({
      method: 'POST',
      url: `/api/problems/${id}/check`,
      headers: bearer(token),
      payload: body,
    });

  it('lists the listed problems, and vehicle routing only to an admin who asks', async () => {
    const listed = (await stack.app.inject({ url: '/api/problems' })).json() as { data: { id: string }[] };
    const ids = listed.data.map((p) => p.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'stock-price-prediction',
        'portfolio-optimization',
        'fraud-detection',
        'demand-forecasting',
        'brain-tumor',
      ]),
    );
    expect(ids).not.toContain('vehicle-routing');
    const user = await stack.userToken('viewer@example.com');
    const asUser = (
      await stack.app.inject({ url: '/api/problems?include_unlisted=true', headers: bearer(user) })
    ).json() as { data: { id: string }[] };
    expect(asUser.data.map((p) => p.id)).not.toContain('vehicle-routing');
    const asAdmin = (
      await stack.app.inject({
        url: '/api/problems?include_unlisted=true',
        headers: bearer(stack.adminToken),
      })
    ).json() as { data: { id: string; listed: boolean }[] };
    expect(asAdmin.data.find((p) => p.id === 'vehicle-routing')).toMatchObject({ listed: false });
  });

  it('maps a valid application to the execute-job request of the spec', async () => {
    const problem = stack.services.registry.getProblem('stock-price-prediction');
    const { appData, context } = createExampleAppData(problem);
    const reply = await check('stock-price-prediction', {
      app_data: appData,
      context: { row_count: context.rowCount, columns: context.columns, application_id: 7 },
    });
    expect(reply.statusCode).toBe(200);
    const data = (reply.json() as { data: { valid: boolean; job_request: { path: string; body: object } } })
      .data;
    expect(data.valid).toBe(true);
    expect(data.job_request.path).toMatch(/^\/stock-price-prediction\/execute-job\/\d+$/);
    expect(data.job_request.body).toMatchObject({ id: 7, quantum_shots: 0, epochs: 50 });
  });

  it('refuses what the form refuses, with the same message on the same field', async () => {
    const problem = stack.services.registry.getProblem('stock-price-prediction');
    const { appData, context } = createExampleAppData(problem);
    const bad = setFieldValue(problem, appData, '/model_configurations/epochs', 3, context);
    const reply = await check('stock-price-prediction', {
      app_data: bad,
      context: { row_count: context.rowCount },
    });
    const data = (reply.json() as { data: { valid: boolean; errors: { path: string; message: string }[] } })
      .data;
    expect(data.valid).toBe(false);
    expect(data.errors).toContainEqual(
      expect.objectContaining({
        path: '/model_configurations/epochs',
        message: 'Epochs must be greater than or equal to 5',
      }),
    );
  });

  it('answers 404 for an unknown problem and 400 for a body without app_data', async () => {
    expect((await check('time-travel', { app_data: {} })).statusCode).toBe(404);
    const missing = await check('fraud-detection', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      success: false,
      detail: '/app_data is required',
      errors: [{ field: '/app_data' }],
    });
    expect(
      (await stack.app.inject({ method: 'POST', url: '/api/problems/fraud-detection/check' })).statusCode,
    ).toBe(401);
  });

  it('answers malformed app_data with field errors, never a server error', async () => {
    const shapes = [
      { model_configurations: 'x' },
      { dataset: 5, preprocess: [], model_configurations: null },
      { model_configurations: { model_type: 'Quantum', quantum_device: 'y', qubits: 'many' } },
      { preprocess: { splitter: 'a', training_features: 'Close\r' } },
      { model_configurations: { modelType: ['quantum'] } },
    ];
    for (const problem of stack.services.registry.listProblems({ includeUnlisted: true })) {
      for (const appData of shapes) {
        const reply = await check(problem.id, { app_data: appData, context: { row_count: 5 } });
        expect(reply.statusCode).toBe(200);
        const data = (
          reply.json() as { data: { valid: boolean; errors: { path: string; message: string }[] } }
        ).data;
        expect(data.valid).toBe(false);
        expect(data.errors.length).toBeGreaterThan(0);
        for (const error of data.errors) expect(error.message).toBeTruthy();
      }
    }
  });
});
