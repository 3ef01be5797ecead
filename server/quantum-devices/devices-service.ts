import type { FastifyBaseLogger } from 'fastify';
import type { AccountsService } from '../accounts/accounts-service';
import type { UserRecord } from '../auth/users-repository';
import { callWorker, workerFailureReason } from '../jobs/worker-call';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';

/** One IBM device as the picker shows it (a type, not an interface: the reply schema's type has an index signature). */
export type QuantumDevice = {
  name: string;
  qubits: number;
  status: 'online' | 'offline';
  status_message: string;
  pending_jobs: number;
};

export type DevicesOutcome =
  | { ok: true; data: { devices: QuantumDevice[] } }
  | { ok: false; status: 400 | 502 | 503; detail: string; errors?: { field: string; message: string }[] };

export const NO_STORED_TOKEN = 'No IBM Quantum token is stored: add yours in your profile.';
const DEFAULT_TIMEOUT_SECONDS = 60;

/**
 * The IBM devices the caller's stored token may use (the device picker), through the worker's
 * `devices` command (qiskit-ibm-runtime; worker/qmlstudio_worker/quantum/devices.py). The decrypted token
 * goes to the worker on stdin only, never into a log or a reply. No stored token: 400; IBM Quantum rejects
 * it: 502; IBM Quantum unreachable: 503, each with the worker's plain sentence.
 */
export class QuantumDevicesService {
  private readonly running = new Set<WorkerHandle>();

  constructor(
    private readonly deps: { accounts: AccountsService; launcher: WorkerLauncher; log: FastifyBaseLogger },
    private readonly options: { timeoutSeconds?: number } = {},
  ) {}

  async list(caller: UserRecord): Promise<DevicesOutcome> {
    const stored = await this.deps.accounts.providerToken(caller, caller.id);
    const token = stored.ok ? stored.token : null;
    if (!token) {
      return {
        ok: false,
        status: 400,
        detail: NO_STORED_TOKEN,
        errors: [{ field: '/custom_ibmq_token', message: NO_STORED_TOKEN }],
      };
    }
    const call = await callWorker(this.deps.launcher, this.running, {
      command: 'devices',
      input: { token },
      timeoutSeconds: this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    });
    if (call.timedOut) {
      return {
        ok: false,
        status: 503,
        detail: `IBM Quantum did not answer within ${call.timeoutSeconds} s: try again later.`,
      };
    }
    if (call.exit.code === 0 && call.result && Array.isArray(call.result.devices)) {
      return { ok: true, data: { devices: call.result.devices as QuantumDevice[] } };
    }
    if (call.failure?.kind === 'validation') {
      // A failure naming the token is IBM Quantum refusing it; one without a field is the network.
      const rejected = call.failure.field === '/token';
      return { ok: false, status: rejected ? 502 : 503, detail: call.failure.message };
    }
    this.deps.log.warn({ exit: call.exit, failure: call.failure?.message }, 'quantum device list failed');
    return { ok: false, status: 502, detail: `The device list failed: ${workerFailureReason(call)}` };
  }

  /** Ends the listings still running (shutdown). */
  close(): void {
    for (const handle of this.running) handle.kill('SIGKILL');
  }
}
