import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';

// POST /api/{problem}/resource-estimate/{userId}: the worker's estimate of the circuit a job
// body would run, for the signed-in owner only; a body without a circuit is a 400 naming /params.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

function quantumBody(problem: string): Json {
  const file = path.resolve(__dirname, '../../src/generated/fixtures', `${problem}.job-requests.json`);
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as { requests: { name: string; body: Json }[] };
  return fixture.requests.find((r) => r.name === 'example with model_type Quantum')!.body;
}

const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;

describe.skipIf(!mode.available)('resource estimate', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(mode);
    const email = 'estimates@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
  });
  afterAll(() => stack?.close());

  const post = (problem: string, payload: object, userId = owner.id, token: string | null = owner.token) =>
    stack.app.inject({
      method: 'POST',
      url: `/api/${problem}/resource-estimate/${userId}`,
      headers: token ? bearer(token) : {},
      payload,
    });

  it('answers qubits, depth, two-qubit gates, evaluations and a time for the fraud VQC', async () => {
    const reply = await post('fraud-detection', { params: quantumBody('fraud-detection'), rows: 1000 });
    expect(reply.statusCode, reply.body).toBe(200);
    const data = (reply.json() as Json).data as Json;
    expect(data).toMatchObject({
      problem: 'fraud-detection',
      model: 'Variational Quantum Classifier',
      qubits: 4,
    });
    expect(data.depth).toBeGreaterThan(10);
    expect(data.two_qubit_gates).toBeGreaterThan(0);
    expect(data.evaluations_per_iteration).toBeGreaterThan(0);
    expect(data.estimated_seconds).toBeGreaterThan(0);
    expect(data.total_shots).toBeNull(); // the example runs on the exact statevector simulator
  }, 120_000);

  it('reports per-run figures and the totals of all repeats, and refuses repeats above 10', async () => {
    const params = { ...quantumBody('fraud-detection'), quantum_device_backend: 'qasm_simulator' };
    const reply = await post('fraud-detection', { params, rows: 100, repeats: 3 });
    expect(reply.statusCode, reply.body).toBe(200);
    const data = (reply.json() as Json).data as Json;
    expect(data.repeats).toBe(3);
    expect(data.total_shots).toBeGreaterThan(0);
    expect(data.all_repeats.total_shots).toBe(3 * data.total_shots);
    expect(data.all_repeats.circuit_evaluations).toBe(3 * data.circuit_evaluations);
    expect(data.all_repeats.estimated_seconds).toBeCloseTo(3 * data.estimated_seconds, 2);
    const tooMany = await post('fraud-detection', { params, rows: 100, repeats: 11 });
    expect(tooMany.statusCode).toBe(400);
    expect(JSON.stringify((tooMany.json() as Json).errors)).toContain('/repeats');
  }, 120_000);

  it('transpiles for the noise model or device the form chose', async () => {
    const body: Json = {
      ...quantumBody('portfolio-optimization'),
      circuit_repetition: 1,
      optimizer_alg_maxiter: 5,
    };
    const ideal = (await post('portfolio-optimization', { params: body })).json().data as Json;
    const reply = await post('portfolio-optimization', { params: body, noise_model: 'fake_kyiv' });
    expect(reply.statusCode, reply.body).toBe(200);
    const noisy = (reply.json() as Json).data as Json;
    expect(noisy).toMatchObject({ noise_model: 'fake_kyiv', device: null, qubits: ideal.qubits });
    expect(String(noisy.transpiled_for)).toMatch(/^fake_kyiv/);
    expect(noisy.depth).toBeGreaterThan(ideal.depth); // routed onto the device's heavy-hex coupling
    expect(noisy.total_shots).toBe(body.quantum_shots * noisy.circuit_evaluations);
    expect(noisy.estimated_seconds).toBeGreaterThan(0);
    // The run's plan under noise passes through the reply schema (it dropped these fields before).
    // Portfolio: one noisy call of one circuit per optimizer evaluation, then the final measurement.
    expect(noisy.optimizer_evaluations).toBeGreaterThan(0);
    expect(noisy.simulator_calls).toBe(noisy.optimizer_evaluations + 1);
    expect(noisy.noisy_circuits_run).toBe(noisy.simulator_calls);
    expect(ideal.simulator_calls).toBeNull();
    const device = (
      await post('portfolio-optimization', {
        params: { ...body, use_quantum_simulator: false, quantum_device_backend: 'ibm_kyiv' },
      })
    ).json().data as Json;
    expect(device).toMatchObject({ device: 'ibm_kyiv', noise_model: null, estimated_seconds: null });
    expect(device.depth).toBe(noisy.depth); // the same snapshot, the same seeded transpilation
    const unknown = await post('portfolio-optimization', { params: body, noise_model: 'fake_nowhere' });
    expect(unknown.statusCode).toBe(400);
    expect((unknown.json() as Json).detail).toContain("Unknown noise model 'fake_nowhere'");
  }, 240_000);

  it('refuses a body without a circuit, another user id and an anonymous caller', async () => {
    const classical = await post('fraud-detection', {
      params: { ...quantumBody('fraud-detection'), model: 'SVM' },
    });
    expect(classical.statusCode).toBe(400);
    expect((classical.json() as Json).errors).toEqual([
      { field: '/params', message: 'The SVM model runs no quantum circuit' },
    ]);
    expect((await post('fraud-detection', { params: {} }, owner.id + 1)).statusCode).toBe(404);
    expect((await post('fraud-detection', { params: {} }, owner.id, null)).statusCode).toBe(401);
    expect((await post('fraud-detection', { rows: 3 })).statusCode).toBe(400);
  }, 120_000);

  it('refuses a malformed job body naming the field, before any worker runs (it answered 502)', async () => {
    // What schemathesis sent: the worker ended with exit code 1 on it.
    const reply = await post('vehicle-routing', {
      noise_model: null,
      params: { s: [[{ '{\u009e': null }, -4.47e16, {}], null, {}], '': [774] },
      rows: 2356,
    });
    expect(reply.statusCode).toBe(400);
    const body = reply.json() as Json;
    expect(body.success).toBe(false);
    expect(body.errors.length).toBeGreaterThan(0);
    for (const error of body.errors as { field: string; message: string }[]) {
      expect(error.field).toMatch(/^\/params/);
      expect(error.message.startsWith(error.field)).toBe(true);
    }
  }, 120_000);
});
