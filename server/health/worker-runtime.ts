import { startWorker } from '../jobs/worker-process';

export interface RuntimeCheck {
  ok: boolean;
  versions?: Record<string, string>;
  error?: string;
}

const CHECK_TIMEOUT_MS = 60_000;
const CACHE_OK_MS = 60_000;

/**
 * Checks that the worker's Python starts and imports qiskit, qiskit_aer and torch
 * (`python -m qmlstudio_worker health`). A success is remembered for a minute: the imports take seconds.
 */
export class WorkerRuntimeCheck {
  private lastOk: { at: number; check: RuntimeCheck } | null = null;
  private inFlight: Promise<RuntimeCheck> | null = null;

  constructor(private readonly python: string) {}

  check(): Promise<RuntimeCheck> {
    if (this.lastOk && Date.now() - this.lastOk.at < CACHE_OK_MS) return Promise.resolve(this.lastOk.check);
    this.inFlight ??= this.runCheck().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async runCheck(): Promise<RuntimeCheck> {
    let reply: RuntimeCheck | null = null;
    const handle = startWorker({
      python: this.python,
      command: 'health',
      onLine: (line) => {
        try {
          reply = JSON.parse(line) as RuntimeCheck;
        } catch {
          // not the health line
        }
      },
    });
    const timer = setTimeout(() => handle.kill('SIGKILL'), CHECK_TIMEOUT_MS);
    const exit = await handle.done;
    clearTimeout(timer);
    const result: RuntimeCheck =
      exit.code === 0 && reply !== null && (reply as RuntimeCheck).ok
        ? reply
        : {
            ok: false,
            error:
              (reply as RuntimeCheck | null)?.error ??
              `worker runtime ${exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`}: ${exit.stderrTail.trim().split('\n').slice(-2).join(' | ') || 'no output'}`,
          };
    if (result.ok) this.lastOk = { at: Date.now(), check: result };
    return result;
  }
}
