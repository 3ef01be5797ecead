import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import {
  bearer,
  executeApplication,
  MODES,
  startStack,
  waitForFinal,
  type TestStack,
} from '../test-support/harness';
import { DEVICE_NEEDS_TOKEN, NOT_QUANTUM, SAME_BACKEND } from './what-if-service';

// Noise what-if through the REAL worker: a finished portfolio VQE output (ideal simulator) re-run
// under the fake_kyiv noise model becomes a new output of the same application with the same body, seed
// and dataset, only the backend changed, and reaches Completed having run the noisy circuits. The choices
// carry the schema's labels; refusals name /backend, or the field of the schema rule the re-run breaks (ADAM
// on a real device: optimizer_algorithm, as save refuses it); someone else's output is not found.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

// PGlite with the in-process queue is always available: one mode is enough for these real runs.
const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;
const PROBLEM = 'portfolio-optimization';

describe('noise what-if re-run', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };
  let stranger: string;

  beforeAll(async () => {
    // Device runs use qiskit-ibm-runtime's local testing mode (the device's fake backend; no token is sent,
    // no network): the worker processes inherit this.
    process.env.QMLSTUDIO_IBM_LOCAL_TESTING = '1';
    stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
    const email = 'what-if@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
    stranger = await stack.userToken('what-if-stranger@example.com');
  });
  afterAll(() => {
    delete process.env.QMLSTUDIO_IBM_LOCAL_TESTING;
    return stack?.close();
  });

  /**
   * The portfolio example, small (VQE, `steps` steps of `optimizer`, one repetition), on the chosen model.
   * Three steps: what is checked is the re-run's body, seed and backend, not how far the optimizer got
   * (each step of a noisy re-run simulates its circuits under the device's noise).
   */
  function run(model: 'VQE' | 'Classical', steps = 3, optimizer = 'COBYLA') {
    const problem = stack.services.registry.getProblem(PROBLEM);
    const { appName, appData } = createExampleAppData(problem);
    const configurations = (appData as Json).model_configurations as Json;
    if (model === 'VQE') {
      configurations.optimizer_step = steps;
      configurations.circuit_repetition = 1;
      configurations.optimizer_algorithm = optimizer;
    } else {
      configurations.model_type = 'Classical';
      configurations.optimizer_type = 'Classical';
    }
    return executeApplication(
      stack,
      owner,
      { problemId: PROBLEM, appName, appData: appData as AppData },
      300_000,
    );
  }

  const whatIf = (outputId: number, backend: unknown, token = owner.token) =>
    stack.app.inject({
      method: 'POST',
      url: `/api/application-outputs/${outputId}/what-if`,
      headers: bearer(token),
      payload: { backend },
    });

  it('re-runs an ideal VQE output under fake_kyiv with the same body and seed', async () => {
    const { outputId, final } = await run('VQE');
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    const source = (await stack.services.repositories.jobs.find(outputId))!;

    const choices = await stack.app.inject({
      url: `/api/application-outputs/${outputId}/what-if`,
      headers: bearer(owner.token),
    });
    expect(choices.statusCode, choices.body).toBe(200);
    // Labelled as the form labels them (defs.json noiseModel x-field.labels); nothing refused for COBYLA.
    expect(choices.json().data).toMatchObject({
      available: true,
      backend: 'ideal',
      backend_label: 'Ideal simulator',
      noise_models: expect.arrayContaining([{ name: 'fake_kyiv', label: 'IBM Kyiv (snapshot)' }]),
      devices: expect.arrayContaining([{ name: 'ibm_kyiv', label: 'ibm_kyiv' }]),
    });

    const reply = await whatIf(outputId, { noise_model: 'fake_kyiv' });
    expect(reply.statusCode, reply.body).toBe(201);
    const created = reply.json().data as { output_id: number; name: string };
    expect(created.output_id).not.toBe(outputId);
    expect(created.name).toBe(
      `${source.name!.replace(`#${outputId}`, `#${created.output_id}`)} (what-if: IBM Kyiv (snapshot))`,
    );

    const rerun = await waitForFinal(stack, created.output_id, 300_000);
    expect(rerun.job.status, JSON.stringify(rerun.events.at(-1))).toBe('Completed');
    const stored = (await stack.services.repositories.jobs.find(created.output_id))!;
    expect(stored.application_id).toBe(source.application_id);
    expect(stored.params).toEqual(source.params); // the simulator stays; the noise travels in the extension
    expect(stored.extension).toEqual({ ...source.extension, quantum_noise_model: 'fake_kyiv' });
    expect(stored.extension.seed).toBe(source.extension.seed);
    expect((stored.app_data as Json).model_configurations.quantum_device.quantum_noise_model).toBe(
      'fake_kyiv',
    );
    // The backend recorded by the worker differs: the source ran exactly, the re-run under the device's noise.
    const solver = (job: Json) => job.result.selection.solver_details as Json;
    expect(solver(source).noise_model).toBeNull();
    expect(solver(stored)).toMatchObject({ noise_model: 'fake_kyiv', backend_run: { device: 'fake_kyiv' } });
    expect(solver(stored).backend_run.shots).toBeGreaterThan(0);

    // The new output is in the application's list, and a re-run back to the ideal simulator is allowed.
    const list = await stack.app.inject({
      url: `/api/application-outputs/${source.application_id}/all`,
      headers: bearer(owner.token),
    });
    expect(JSON.stringify(list.json())).toContain(created.name);
    expect((await whatIf(created.output_id, 'ideal', stranger)).statusCode).toBe(404);
  }, 620_000);

  it('refuses unknown backends, the same backend, a device without a token and a classical output', async () => {
    const quantum = (
      await stack.services.repositories.jobs.listByOwner(owner.id, { limit: 50, before: null })
    ).find(
      (job) =>
        job.status === 'Completed' &&
        job.result?.model_type === 'Quantum' &&
        [null, 'None'].includes(job.extension.quantum_noise_model as string | null),
    );
    expect(quantum, 'the first test leaves a Completed ideal VQE output').toBeDefined();
    const id = quantum!.id;
    const refused = async (backend: unknown) => {
      const reply = await whatIf(id, backend);
      expect(reply.statusCode, reply.body).toBe(400);
      return (reply.json() as Json).errors[0] as Json;
    };
    expect((await refused({ noise_model: 'fake_nowhere' })).message).toContain(
      "Unknown noise model 'fake_nowhere'",
    );
    expect((await refused({ device: 'ibm_nowhere' })).field).toBe('/backend');
    expect((await refused('exact')).message).toContain('Unknown backend');
    expect((await refused('ideal')).message).toBe(SAME_BACKEND.replace('{label}', 'Ideal simulator'));
    expect((await refused({ device: 'ibm_kyiv' })).message).toBe(
      DEVICE_NEEDS_TOKEN.replace('{device}', 'ibm_kyiv'),
    );

    const { outputId: classical, final } = await run('Classical');
    expect(final.job.status).toBe('Completed');
    const reply = await whatIf(classical, { noise_model: 'fake_kyiv' });
    expect(reply.statusCode).toBe(400);
    expect((reply.json() as Json).detail).toBe(NOT_QUANTUM);
    expect((await whatIf(2147483000, 'ideal')).statusCode).toBe(404);
  }, 320_000);

  it('refuses ADAM on a real device up front, from the schema rule save uses too (a noise model stays offered)', async () => {
    const adamRefused = stack.services.registry.platform.messages.adamNeedsSimulation!;
    const field = '/model_configurations/optimizer_algorithm';
    const { outputId, final } = await run('VQE', 2, 'ADAM');
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');

    const choices = await stack.app.inject({
      url: `/api/application-outputs/${outputId}/what-if`,
      headers: bearer(owner.token),
    });
    const data = choices.json().data as Json;
    expect(data.devices.length).toBeGreaterThan(0);
    expect(data.devices.every((d: Json) => d.refused === adamRefused)).toBe(true);
    expect(data.noise_models.some((m: Json) => 'refused' in m)).toBe(false);

    const reply = await whatIf(outputId, { device: 'ibm_kyiv' });
    expect(reply.statusCode, reply.body).toBe(400);
    expect(reply.json()).toMatchObject({
      detail: `Optimizer Algorithm: ${adamRefused}`,
      errors: [{ field, message: adamRefused }],
    });

    // Saving the same configuration is refused on the same field with the same message.
    const source = (await stack.services.repositories.jobs.find(outputId))!;
    const appData = structuredClone(source.app_data) as Json;
    appData.model_configurations.quantum_device = {
      use_quantum_sim: false,
      act_quantum_device: 'ibm_kyiv',
      check_custom_ibm_token: false,
    };
    const saved = await stack.app.inject({
      method: 'PUT',
      url: '/api/applications/update-app-data',
      headers: bearer(owner.token),
      payload: { application_id: source.application_id, user_id: owner.id, app_data: appData },
    });
    expect(saved.statusCode, saved.body).toBe(400);
    expect(saved.json().errors).toContainEqual({ field: `/app_data${field}`, message: adamRefused });
  }, 320_000);

  it('re-runs it on an IBM device once a token is stored, and the timeline shows the provider state', async () => {
    // Each device evaluation is a provider job (local Aer under the device's full noise): one COBYLA step.
    const { outputId, final: ran } = await run('VQE', 1);
    expect(ran.job.status).toBe('Completed');
    const source = (await stack.services.repositories.jobs.find(outputId))!;
    const saved = await stack.app.inject({
      method: 'PUT',
      url: `/api/users/${owner.id}`,
      headers: bearer(owner.token),
      payload: { provided_timezone: 'UTC', custom_ibmq_token: 'local_testing_token' },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const reply = await whatIf(source.id, { device: 'ibm_kyiv' });
    expect(reply.statusCode, reply.body).toBe(201);
    const { output_id: id } = reply.json().data as { output_id: number };
    const final = await waitForFinal(stack, id, 300_000);
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    const stored = (await stack.services.repositories.jobs.find(id))!;
    expect(stored.params).toMatchObject({ use_quantum_simulator: false, quantum_device_backend: 'ibm_kyiv' });
    expect(stored.extension.seed).toBe(source.extension.seed);
    const backendRun = (stored.result as Json).selection.solver_details.backend_run as Json;
    expect(backendRun).toMatchObject({ device: 'fake_kyiv', local_testing_mode: true });
    expect(backendRun.provider_job_ids.length).toBeGreaterThan(0);
    const timeline = (
      await stack.app.inject({
        url: `/api/application-outputs/${id}/status-timeline`,
        headers: bearer(owner.token),
      })
    ).json().data as Json[];
    const reported = timeline.filter((t) => String(t.reason).endsWith('at the provider'));
    expect(reported.length, JSON.stringify(timeline)).toBeGreaterThan(0);
    expect(reported.every((t) => t.phase === 'executing')).toBe(true);
  }, 320_000);
});
