import type { FastifyBaseLogger } from 'fastify';
import type { AccountsService } from '../accounts/accounts-service';
import type { UserRecord } from '../auth/users-repository';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerExit, WorkerHandle } from '../jobs/worker-process';
import { parseWorkerLine } from '../jobs/worker-protocol';

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
 * The IBM devices the caller's stored token may use (issue #12: the device picker), through the worker's
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
    const seen: {
      result: Record<string, unknown> | null;
      failure: { message: string; kind: string; field?: string | null } | null;
    } = { result: null, failure: null };
    const handle = this.deps.launcher.launch({
      command: 'devices',
      input: { token },
      onLine: (text) => {
        const line = parseWorkerLine(text);
        if (line?.type === 'result') seen.result = line.data;
        else if (line?.type === 'error') seen.failure = line;
      },
    });
    this.running.add(handle);
    const timeoutSeconds = this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      handle.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    let exit: WorkerExit;
    try {
      exit = await handle.done;
    } finally {
      clearTimeout(timer);
      this.running.delete(handle);
    }
    if (timedOut) {
      return {
        ok: false,
        status: 503,
        detail: `IBM Quantum did not answer within ${timeoutSeconds} s: try again later.`,
      };
    }
    if (exit.code === 0 && seen.result && Array.isArray(seen.result.devices)) {
      return { ok: true, data: { devices: seen.result.devices as QuantumDevice[] } };
    }
    if (seen.failure?.kind === 'validation') {
      // A failure naming the token is IBM Quantum refusing it; one without a field is the network.
      const rejected = seen.failure.field === '/token';
      return { ok: false, status: rejected ? 502 : 503, detail: seen.failure.message };
    }
    this.deps.log.warn({ exit, failure: seen.failure?.message }, 'quantum device list failed');
    const how = seen.failure?.message ?? `the worker ended with exit code ${exit.code ?? 'unknown'}`;
    return { ok: false, status: 502, detail: `The device list failed: ${how}` };
  }

  /** Ends the listings still running (shutdown). */
  close(): void {
    for (const handle of this.running) handle.kill('SIGKILL');
  }
}
