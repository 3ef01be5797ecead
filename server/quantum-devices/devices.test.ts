import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerLaunch, WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerExit, WorkerHandle } from '../jobs/worker-process';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import { NO_STORED_TOKEN, QuantumDevicesService } from './devices-service';

// GET /api/quantum-devices: the IBM devices of the caller's stored token, through the worker's
// `devices` command. The worker is a stand-in here (no network): it answers the lines the real command
// writes (worker/tests/unit/test_quantum_devices.py checks those against fake backends).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

/** A launcher whose `devices` command answers `lines` and records what it was given. */
class StandInLauncher implements WorkerLauncher {
  readonly kind = 'cold' as const;
  readonly launched: WorkerLaunch[] = [];
  constructor(
    private readonly lines: object[],
    private readonly code = 0,
  ) {}

  launch(options: WorkerLaunch): WorkerHandle {
    this.launched.push(options);
    const done = (async (): Promise<WorkerExit> => {
      for (const line of this.lines) await options.onLine?.(JSON.stringify(line));
      return { code: this.code, signal: null, stderrTail: '' };
    })();
    return { done, pid: undefined, kill: () => undefined };
  }

  async close(): Promise<void> {}
}

const mode = MODES.find((m) => m.database === 'pglite' && m.queue === 'in-process')!;
const SECRET = 'ibm-secret_TOKEN-42';

describe.skipIf(!mode.available)('quantum devices', () => {
  let stack: TestStack;
  let owner: { id: number; token: string };

  beforeAll(async () => {
    stack = await startStack(mode);
    const email = 'devices@example.com';
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    owner = { id: Number(user!.id), token };
  });
  afterAll(() => stack?.close());

  const get = (token: string | null) =>
    stack.app.inject({ method: 'GET', url: '/api/quantum-devices', headers: token ? bearer(token) : {} });
  const caller = async () => (await stack.services.repositories.users.findByEmail('devices@example.com'))!;
  const service = (launcher: WorkerLauncher) =>
    new QuantumDevicesService({ accounts: stack.services.accounts, launcher, log: stack.app.log });

  it('needs a signed-in caller with a stored token, and says how to add one', async () => {
    expect((await get(null)).statusCode).toBe(401);
    const reply = await get(owner.token);
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({ success: false, detail: NO_STORED_TOKEN });
    expect(NO_STORED_TOKEN).toBe('No IBM Quantum token is stored: add yours in your profile.');
  });

  it('lists the devices the worker reports, handing it the decrypted token on stdin only', async () => {
    const saved = await stack.app.inject({
      method: 'PUT',
      url: `/api/users/${owner.id}`,
      headers: bearer(owner.token),
      payload: { custom_ibmq_token: SECRET },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const devices = [
      { name: 'ibm_kyiv', qubits: 127, status: 'online', status_message: 'active', pending_jobs: 12 },
      { name: 'ibm_torino', qubits: 133, status: 'offline', status_message: 'maintenance', pending_jobs: 0 },
    ];
    const launcher = new StandInLauncher([{ type: 'result', data: { devices } }]);
    const outcome = await service(launcher).list(await caller());
    expect(outcome).toEqual({ ok: true, data: { devices } });
    expect(launcher.launched).toEqual([
      expect.objectContaining({ command: 'devices', input: { token: SECRET } }),
    ]);
  });

  it('answers 502 when IBM Quantum rejects the token and 503 when it cannot be reached', async () => {
    const rejected = new StandInLauncher(
      [{ type: 'error', kind: 'validation', field: '/token', message: 'IBM Quantum rejected the token.' }],
      2,
    );
    expect(await service(rejected).list(await caller())).toEqual({
      ok: false,
      status: 502,
      detail: 'IBM Quantum rejected the token.',
    });
    const offline = new StandInLauncher(
      [{ type: 'error', kind: 'validation', message: 'IBM Quantum could not be reached (x).' }],
      2,
    );
    const unreachable = await service(offline).list(await caller());
    expect(unreachable).toEqual({ ok: false, status: 503, detail: 'IBM Quantum could not be reached (x).' });
    const crashed = await service(new StandInLauncher([], 1)).list(await caller());
    expect(crashed).toMatchObject({ ok: false, status: 502 });
    expect(JSON.stringify([unreachable, crashed])).not.toContain(SECRET);
  });

  it('is in the OpenAPI document with its refusals', async () => {
    const doc = (await stack.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as Json;
    const route = doc.paths['/api/quantum-devices']?.get ?? doc.paths['/quantum-devices']?.get;
    expect(route, Object.keys(doc.paths).join(' ')).toBeDefined();
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '502', '503']));
  });
});
