import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleAppData, type AppData } from '../../src/engine';
import { bearer, executeApplication, MODES, startStack, type TestStack } from '../test-support/harness';

// Through execute-job and the REAL worker: the portfolio example with a noise model runs its
// circuits under the fake device's noise (the extension carries the choice; the status timeline shows the
// run's phases), and a device run without any token fails with the worker's plain sentence.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;
const PROBLEM = 'portfolio-optimization';

describe.skipIf(!mode.available)('quantum runs off the ideal simulator', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(mode, { WORKER_CONCURRENCY: '1', WORKER_TIMEOUT_SECONDS: '600' });
    const email = 'noisy@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
  });
  afterAll(() => stack?.close());

  async function run(edit: (device: Json, configurations: Json) => void) {
    const problem = stack.services.registry.getProblem(PROBLEM);
    const { appName, appData } = createExampleAppData(problem);
    const configurations = (appData as Json).model_configurations as Json;
    configurations.optimizer_step = 15;
    configurations.circuit_repetition = 1;
    edit(configurations.quantum_device as Json, configurations);
    return executeApplication(
      stack,
      owner,
      {
        problemId: PROBLEM,
        appName,
        appData: appData as AppData,
      },
      300_000,
    );
  }

  it('a noise model reaches the worker, runs the noisy circuits and shows its phases', async () => {
    const { outputId, final } = await run((device) => {
      device.quantum_noise_model = 'fake_kyiv';
    });
    expect(final.job.status, JSON.stringify(final.events.at(-1))).toBe('Completed');
    const stored = await stack.services.repositories.jobs.find(outputId);
    expect(stored!.extension).toMatchObject({ quantum_noise_model: 'fake_kyiv' });
    const result = JSON.stringify(stored!.result);
    expect(result).toContain('"noise_model":"fake_kyiv"');
    expect(result).toContain('"device":"fake_kyiv"');
    // The output's 'Quantum Backend' line from this real result (server/outputs/quantum-run.ts), naming the
    // noise model as the form labels it (defs.json noiseModel), not fake_kyiv.
    const detail = (
      await stack.app.inject({
        url: `/api/application-outputs/${outputId}/detail`,
        headers: bearer(owner.token),
      })
    ).json().data as Json;
    expect(detail.quantum_backend).toMatch(
      /^ran under the IBM Kyiv \(snapshot\) noise model on Aer with [\d,]+ shots \(\d+ circuits\)$/,
    );
    const timeline = (
      await stack.app.inject({
        url: `/api/application-outputs/${outputId}/status-timeline`,
        headers: bearer(owner.token),
      })
    ).json().data as Json[];
    expect(timeline.map((t) => t.phase ?? t.status)).toEqual([
      'queued',
      'running',
      'preparing',
      'executing',
      'post-processing',
      'Completed',
    ]);
  }, 320_000);

  it('a device run without a custom or stored token fails saying what to do', async () => {
    const { final } = await run((device) => {
      device.use_quantum_sim = false;
      device.act_quantum_device = 'ibm_kyiv';
      delete device.sim_quantum_device;
      delete device.quantum_noise_model;
    });
    expect(final.job.status).toBe('Failed');
    const failed = final.events.filter((e) => e.type === 'status').at(-1)!;
    expect(String(failed.payload.reason)).toContain(
      'Running on the IBM device ibm_kyiv needs an IBM Quantum token: add yours in your profile',
    );
  }, 120_000);
});
