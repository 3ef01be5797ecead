import { startWorker, type WorkerHandle } from '../jobs/worker-process';

export interface RuntimeCheck {
  ok: boolean;
  versions?: Record<string, string>;
  error?: string;
}

/** The last finished check and when it finished; null before the first one has ended. */
export interface RuntimeSnapshot {
  result: RuntimeCheck;
  checkedAt: Date;
}

export interface RuntimeCheckOptions {
  /** How often the runtime is checked again in the background. */
  intervalMs?: number;
  /** How soon a failed check is tried again (a broken runtime may be repaired). */
  retryMs?: number;
  /** A check that takes longer is killed and counts as failed. */
  timeoutMs?: number;
}

/**
 * Knows whether the worker's Python starts and imports qiskit, qiskit_aer and torch
 * (`python -m qmlstudio_worker health`, 3 to 6 s and several CPU-seconds). The check runs at start
 * and then in the background on an interval; readers get the last result at once and never wait on
 * Python. A reader that finds the result stale starts a background refresh.
 */
export class WorkerRuntimeCheck {
  private last: RuntimeSnapshot | null = null;
  private inFlight: Promise<RuntimeCheck> | null = null;
  private running: WorkerHandle | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly retryMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly python: string,
    options: RuntimeCheckOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5 * 60_000;
    this.retryMs = options.retryMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** Runs the first check (resolving with its result) and keeps checking on the interval. */
  start(): Promise<RuntimeCheck> {
    this.stopped = false;
    return this.refresh();
  }

  /** The last result without waiting; starts a background refresh when there is none or it is stale. */
  snapshot(now = Date.now()): RuntimeSnapshot | null {
    const stale = !this.last || now - this.last.checkedAt.getTime() >= this.dueAfterMs();
    if (stale && !this.stopped) void this.refresh();
    return this.last;
  }

  /** Checks now (joining a check already under way). */
  refresh(): Promise<RuntimeCheck> {
    this.inFlight ??= this.runCheck().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Stops the schedule and kills a check under way (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running?.kill('SIGKILL');
    await this.inFlight?.catch(() => undefined);
  }

  private dueAfterMs() {
    return this.last?.result.ok === false ? this.retryMs : this.intervalMs;
  }

  private schedule() {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh(), this.dueAfterMs());
    this.timer.unref(); // the schedule alone never keeps the process alive
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
    this.running = handle;
    const timer = setTimeout(() => handle.kill('SIGKILL'), this.timeoutMs);
    const exit = await handle.done;
    clearTimeout(timer);
    this.running = null;
    const answered = reply as RuntimeCheck | null;
    const result: RuntimeCheck =
      exit.code === 0 && answered?.ok
        ? answered
        : {
            ok: false,
            error:
              answered?.error ??
              `worker runtime ${exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`}: ${exit.stderrTail.trim().split('\n').slice(-2).join(' | ') || 'no output'}`,
          };
    this.last = { result, checkedAt: new Date() };
    this.schedule();
    return result;
  }
}
