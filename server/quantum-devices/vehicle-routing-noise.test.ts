import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { bearer, executeApplication, MODES, startStack, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

// Vehicle routing under a noise model through execute-job and the REAL worker: the smallest
// instance (an uploaded depot and 2 stops, 6 qubits) runs its QAOA under fake_kyiv to Completed on the density
// matrix, and the shipped example (a depot and 3 stops, 14 qubits) runs on statevector trajectories (a density
// matrix would need 4.3 GB; worker/qmlstudio_worker/quantum/backends.py simulation_method).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;
const PROBLEM = 'vehicle-routing';
const THREE_STOPS_CSV =
  'id,latitude,longitude,demand\n1,52.52,13.405,0\n2,52.53,13.42,30\n3,52.51,13.38,40\n';

describe.skipIf(!mode.available)('vehicle routing under a noise model', () => {
  let stack: TestStack;
  let owner: { id: number; name: string; email: string; token: string };

  beforeAll(async () => {
    stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
    const email = 'noisy-routes@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), name: user!.name, email, token };
  });
  afterAll(() => stack?.close());

  function noisyExample(): { appName: string; appData: Json } {
    const { appName, appData } = createExampleAppData(stack.services.registry.getProblem(PROBLEM));
    const configurations = (appData as Json).model_configurations as Json;
    (configurations.quantum_device as Json).quantum_noise_model = 'fake_kyiv';
    return { appName, appData: appData as Json };
  }

  it('the shipped example (14 qubits) runs under fake_kyiv on statevector trajectories to Completed', async () => {
    const { appName, appData } = noisyExample();
    const configurations = appData.model_configurations as Json;
    // VQE with 2 optimizer steps: about 6 s per noisy evaluation of the 14-qubit circuit here.
    configurations.optimizer_type = 'VQE';
    configurations.optimizer_step = 2;
    configurations.circuit_repetition = 1;
    const { outputId, final } = await executeApplication(
      stack,
      owner,
      { problemId: PROBLEM, appName, appData: appData as AppData },
      240_000,
    );
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    const stored = await stack.services.repositories.jobs.find(outputId);
    const result = JSON.stringify(stored!.result);
    expect(result).toContain('"noise_model":"fake_kyiv"');
    expect(result).toContain('"qubits":14');
    expect(result).toContain('"exact_distance_km"');
  }, 270_000);

  it('a depot and 2 stops run QAOA under fake_kyiv to Completed', async () => {
    const upload = fileUploadBody(THREE_STOPS_CSV, { filename: 'three-stops.csv' });
    const uploaded = await stack.app.inject({
      method: 'POST',
      url: `/api/upload/${encodeURIComponent(owner.name)}/${encodeURIComponent(owner.email)}`,
      headers: { ...bearer(owner.token), ...upload.headers },
      payload: upload.payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);
    const { appName, appData } = noisyExample();
    appData.dataset = { kind: 'csv', name: 'three-stops.csv', url: String((uploaded.json() as Json).url) };
    (appData.preprocess as Json).num_vehicles = 1;
    const configurations = appData.model_configurations as Json;
    configurations.optimizer_step = 10;
    configurations.circuit_repetition = 1;
    const { outputId, final } = await executeApplication(
      stack,
      owner,
      {
        problemId: PROBLEM,
        appName,
        appData: appData as AppData,
        dataset: { rowCount: 3, columns: ['id', 'latitude', 'longitude', 'demand'] },
      },
      300_000,
    );
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    const stored = await stack.services.repositories.jobs.find(outputId);
    expect(stored!.extension).toMatchObject({ quantum_noise_model: 'fake_kyiv' });
    const result = JSON.stringify(stored!.result);
    expect(result).toContain('"noise_model":"fake_kyiv"');
    expect(result).toContain('"qubits":6');
    expect(result).toContain('"exact_distance_km"');
  }, 320_000);
});
