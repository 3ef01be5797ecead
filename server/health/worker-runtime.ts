import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import { startWorker, WORKER_DIR, type WorkerHandle } from '../jobs/worker-process';

export interface RuntimeCheck {
  ok: boolean;
  versions?: Record<string, string>;
  error?: string;
  /** The check was killed at its time limit: slow (a loaded machine), not known broken. */
  timedOut?: boolean;
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
  /**
   * The same for the first check, which on a fresh install also writes the venv's bytecode cache
   * (numpy, scikit-learn, torch, qiskit: 14 s here on a quiet machine, far more under load).
   */
  firstTimeoutMs?: number;
  /**
   * A file that keeps the last passing check (WORKER_CHECK_RECORD). A start finds it there and, when it
   * is younger than intervalMs and the Python, its venv and the worker package are unchanged since,
   * takes it as its first check instead of starting Python: the same trust the schedule gives a check
   * for intervalMs, kept over a restart. Null: every start checks.
   */
  record?: string | null;
}

/** What a kept check was made with: the interpreter, its venv's packages and the worker package. */
interface CheckRecord {
  result: RuntimeCheck;
  checkedAt: string;
  fingerprint: string;
}

/** Latest modification time (ms) of a directory's files and directories, itself included, recursively. */
function latestChange(dir: string): number {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '__pycache__') continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? latestChange(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/**
 * What a passing check depends on: the interpreter (its path and the file it resolves to), its venv's
 * site-packages directories (an install, removal or upgrade adds or removes entries there, which changes
 * the directory's time) and every file of the worker package. Null when any of it cannot be read.
 */
export function runtimeFingerprint(python: string, workerDir = WORKER_DIR): string | null {
  try {
    const real = realpathSync(python);
    const parts: (string | number)[] = [python, real, statSync(real).mtimeMs];
    const lib = path.join(path.dirname(path.dirname(python)), 'lib');
    let libs: string[] = [];
    try {
      libs = readdirSync(lib).filter((name) => name.startsWith('python'));
    } catch {
      // not a venv: the interpreter alone
    }
    for (const name of libs.sort()) {
      const sitePackages = path.join(lib, name, 'site-packages');
      parts.push(sitePackages, statSync(sitePackages).mtimeMs);
    }
    parts.push(latestChange(path.join(workerDir, 'qmlstudio_worker')));
    return JSON.stringify(parts);
  } catch {
    return null;
  }
}

/** How a job is refused while the last check says the worker's Python does not start. */
export const RUNTIME_BROKEN = "The worker's Python does not start";

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
  /** The first check's result, once start() has been called (jobs wait for it). */
  private first: Promise<RuntimeCheck> | null = null;
  private readonly listeners = new Set<(result: RuntimeCheck, previous: RuntimeCheck | null) => void>();
  private readonly intervalMs: number;
  private readonly retryMs: number;
  private readonly timeoutMs: number;
  private readonly firstTimeoutMs: number;
  private readonly record: string | null;

  constructor(
    private readonly python: string,
    options: RuntimeCheckOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 5 * 60_000;
    this.retryMs = options.retryMs ?? 30_000;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.firstTimeoutMs = Math.max(this.timeoutMs, options.firstTimeoutMs ?? 180_000);
    this.record = options.record ?? null;
  }

  /**
   * Runs the first check (resolving with its result) and keeps checking on the interval. The server
   * listens without waiting for it: /api/health says "not checked yet" meanwhile and jobs wait for it
   * (jobRefusal).
   */
  start(): Promise<RuntimeCheck> {
    this.stopped = false;
    this.first ??= this.reuseRecord() ?? this.refresh();
    return this.first;
  }

  /**
   * The kept passing check as the first result, when it is younger than intervalMs and made with the
   * same Python, venv and worker package (the next check is due when it would have been); else null.
   */
  private reuseRecord(now = Date.now()): Promise<RuntimeCheck> | null {
    if (!this.record) return null;
    let kept: CheckRecord;
    try {
      kept = JSON.parse(readFileSync(this.record, 'utf8')) as CheckRecord;
    } catch {
      return null; // none yet, or unreadable: check
    }
    const checkedAt = new Date(kept.checkedAt);
    const age = now - checkedAt.getTime();
    if (!kept.result?.ok || !(age >= 0 && age < this.intervalMs)) return null;
    if (kept.fingerprint !== runtimeFingerprint(this.python)) return null;
    this.last = { result: kept.result, checkedAt };
    this.schedule(this.intervalMs - age);
    for (const listener of this.listeners) listener(kept.result, null);
    return Promise.resolve(kept.result);
  }

  /** Keeps a passing check for the next start, or forgets the kept one after a failing check. */
  private keep(result: RuntimeCheck, checkedAt: Date) {
    if (!this.record) return;
    try {
      if (!result.ok) {
        rmSync(this.record, { force: true });
        return;
      }
      const fingerprint = runtimeFingerprint(this.python);
      if (!fingerprint) return;
      const record: CheckRecord = { result, checkedAt: checkedAt.toISOString(), fingerprint };
      mkdirSync(path.dirname(this.record), { recursive: true });
      // Written whole, then renamed: another server starting beside this one reads the old or the new.
      const partial = `${this.record}.${process.pid}.partial`;
      writeFileSync(partial, JSON.stringify(record));
      renameSync(partial, this.record);
    } catch {
      // a record is a saving, not a duty: the next start checks
    }
  }

  /**
   * Called with every finished check whose outcome (ok or not, or the error text) differs from the
   * one before, the first check included: the server logs the runtime breaking and coming back.
   */
  onChange(listener: (result: RuntimeCheck, previous: RuntimeCheck | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Whether a job may start its worker: null when it may, else the reason to refuse it. Once start()
   * has been called, waits for the first check; after that answers from the last check at once (a
   * failed check is tried again every retryMs, so a repaired Python takes jobs again; a check that
   * only ran out of time refuses nothing). Without
   * start() (a process that runs no checks, such as a BullMQ queue worker) jobs are never held.
   */
  async jobRefusal(): Promise<string | null> {
    if (!this.first) return null;
    await this.first;
    const last = this.last?.result;
    // A check that ran out of time says the machine is slow, not that Python is broken: jobs run.
    if (!last || last.ok || last.timedOut) return null;
    return `${RUNTIME_BROKEN} (the server's check \`python -m qmlstudio_worker health\` failed): ${last.error ?? 'error'}`;
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

  private schedule(delayMs = this.dueAfterMs()) {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.refresh(), delayMs);
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
    const limit = this.last ? this.timeoutMs : this.firstTimeoutMs;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      handle.kill('SIGKILL');
    }, limit);
    const exit = await handle.done;
    clearTimeout(timer);
    this.running = null;
    const answered = reply as RuntimeCheck | null;
    const result: RuntimeCheck =
      exit.code === 0 && answered?.ok
        ? answered
        : {
            ok: false,
            ...(timedOut ? { timedOut: true } : {}),
            error:
              answered?.error ??
              `worker runtime ${timedOut ? `did not answer within ${limit / 1000} s` : exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`}: ${exit.stderrTail.trim().split('\n').slice(-2).join(' | ') || 'no output'}`,
          };
    // A check killed by stop() (shutdown) says nothing about the runtime.
    if (this.stopped) return result;
    const previous = this.last?.result ?? null;
    this.last = { result, checkedAt: new Date() };
    this.keep(result, this.last.checkedAt);
    this.schedule();
    if (!previous || previous.ok !== result.ok || previous.error !== result.error) {
      for (const listener of this.listeners) listener(result, previous);
    }
    return result;
  }
}
