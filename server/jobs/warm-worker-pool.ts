import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { ColdWorkerLauncher, type WorkerLaunch, type WorkerLauncher } from './worker-launcher';
import { runArguments, WORKER_DIR, type WorkerExit, type WorkerHandle } from './worker-process';
import { pythonEnv } from './python-env';

/** Added to a job's stderr tail when the warm parent that forked it ended while the job ran. */
export const WORKER_LOST_MESSAGE = 'The worker running this job was lost (its warm worker process ended)';

const STDERR_TAIL_BYTES = 4096;
/** A launch whose connection ended before its child existed is tried again on the restarted parent. */
const CONNECT_ATTEMPTS = 3;
/** More parent deaths than this within RESTART_WINDOW_MS: the pool gives up and launches cold. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;

interface PoolLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WarmWorkerPoolOptions {
  /** The Python interpreter that runs the worker package. */
  python: string;
  log: PoolLog;
  /** Start the preloaded parent now (the server's default) rather than at the first launch. */
  startNow?: boolean;
  /** How long the parent may take to import the libraries before the pool falls back to cold launches. */
  readyTimeoutMs?: number;
  /** Time a stopping parent gets between SIGTERM and SIGKILL. */
  stopGraceMs?: number;
  /** Set on the parent's environment, which its forked children inherit (the file store's settings). */
  env?: Record<string, string>;
  /**
   * false: the parent and its pipes do not keep this Node process running (a test process's shared pool
   * ends with it: the parent exits when its stdin closes). Default true.
   */
  keepProcessAlive?: boolean;
  /**
   * The socket of a preloaded parent another process runs (WORKER_SERVE_SOCKET): launches fork from it,
   * each with this pool's environment, and the pool neither starts nor stops it. If it cannot be
   * reached, the pool logs it and launches cold.
   */
  attachTo?: string;
}

interface Parent {
  /** null: a parent another process runs (attachTo). */
  process: ChildProcess | null;
  /** true once the parent listens; false when it ended (or timed out) before. */
  ready: Promise<boolean>;
  exited: boolean;
  /** Resolves when the parent process has ended. */
  ended: Promise<void>;
  /** Launches with a connection to this parent (their children were forked by it). */
  launches: Set<WarmLaunch>;
}

/** The handle of one launch: the forked child (or, after a fallback, a cold process). */
class WarmLaunch implements WorkerHandle {
  readonly done: Promise<WorkerExit>;
  resolve!: (exit: WorkerExit) => void;
  childPid: number | undefined;
  /** The exit line came (or the connection closed): the group id may be reused, never signal it again. */
  reaped = false;
  /** The strongest signal asked for before the child's pid was known; sent as soon as it is. */
  pendingSignal: NodeJS.Signals | null = null;
  parentLost = false;
  delegate: WorkerHandle | null = null;

  constructor() {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }

  get pid(): number | undefined {
    return this.delegate ? this.delegate.pid : this.childPid;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.delegate) return this.delegate.kill(signal);
    if (this.reaped) return;
    if (this.childPid === undefined) {
      if (this.pendingSignal !== 'SIGKILL') this.pendingSignal = signal;
      return;
    }
    try {
      process.kill(-this.childPid, signal); // the child called setsid(): its pid is its group id
    } catch {
      // The group has no process left.
    }
  }

  started(pid: number) {
    this.childPid = pid;
    if (this.pendingSignal) this.kill(this.pendingSignal);
  }
}

/**
 * Warm workers: one preloaded Python parent (`python -m qmlstudio_worker serve`, which has imported
 * numpy, pandas, scikit-learn, torch and qiskit once) forks a child per launch over a Unix socket, so
 * a job starts in tens of milliseconds instead of seconds of imports, and each job still has a process
 * (and process group) of its own: stop, time limit and crash work as with cold launches. The handle
 * keeps startWorker's semantics: done resolves after the exit info and every line; pid is the child's;
 * kill signals the child's group; stderrTail is the child's stderr (written to a file per launch).
 *
 * Launches wait while the parent is starting. If it cannot start (or keeps dying), the pool logs it
 * and launches cold instead. If it dies while jobs run, their children are killed and they end as
 * lost (WORKER_LOST_MESSAGE); the parent is started again for the next launches.
 */
export class WarmWorkerPool implements WorkerLauncher {
  readonly kind = 'warm' as const;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'qml-warm-'));
  private readonly socketPath: string;
  private parent: Parent | null = null;
  private cold: ColdWorkerLauncher | null = null;
  private closing = false;
  private sequence = 0;
  private deaths: number[] = [];

  constructor(private readonly options: WarmWorkerPoolOptions) {
    this.socketPath = options.attachTo ?? path.join(this.dir, 'worker.sock');
    if (options.startNow) this.start();
  }

  /** The parent's process id while it runs (operations and tests). */
  get parentPid(): number | undefined {
    return this.parent && !this.parent.exited ? this.parent.process?.pid : undefined;
  }

  /** The Unix socket launches connect to: another process may fork from it too (WORKER_SERVE_SOCKET). */
  get socket(): string {
    return this.socketPath;
  }

  /** Whether launches go cold because the parent could not be started. */
  get fellBackToCold(): boolean {
    return this.cold !== null;
  }

  /** The Python interpreter the pool runs. */
  get python(): string {
    return this.options.python;
  }

  /**
   * A launcher whose commands run on this pool's parent with `env` as their worker environment (the
   * settings a pool of their own would have been given): several stacks in one process (the server
   * tests) share one preloaded parent instead of importing torch and qiskit once each. Closing it
   * leaves the pool to its owner; the stack stops its own jobs first.
   */
  withEnvironment(env: Record<string, string>): WorkerLauncher {
    return {
      kind: 'warm',
      launch: (options) => this.launchWith(options, env),
      close: async () => {},
    };
  }

  /** Resolves once a parent is ready (true) or the pool has fallen back to cold launches (false). */
  async warmUp(): Promise<boolean> {
    return (await this.readyParent()) !== null;
  }

  launch(options: WorkerLaunch): WorkerHandle {
    return this.launchWith(options, undefined);
  }

  /** A launch with the pool's environment, or with `env` in its place (withEnvironment). */
  private launchWith(options: WorkerLaunch, env: Record<string, string> | undefined): WorkerHandle {
    const launch = new WarmLaunch();
    void this.run(launch, options, env).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      launch.reaped = true;
      launch.resolve({ code: -1, signal: null, stderrTail: `warm worker launch failed: ${message}` });
    });
    return launch;
  }

  async close(): Promise<void> {
    this.closing = true;
    const parent = this.parent;
    const owned = parent?.process;
    if (parent && owned && !parent.exited) {
      const exited = new Promise<void>((resolve) => owned.once('exit', () => resolve()));
      owned.stdin?.end(); // the parent ends at end of input...
      owned.kill('SIGTERM'); // ...or at once on SIGTERM
      const timer = setTimeout(() => owned.kill('SIGKILL'), this.options.stopGraceMs ?? 3000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private start(): Parent {
    if (this.options.attachTo) return this.attach(this.options.attachTo);
    const child = spawn(
      this.options.python,
      ['-m', 'qmlstudio_worker', 'serve', '--socket', this.socketPath],
      {
        cwd: WORKER_DIR,
        env: pythonEnv(this.options.env),
        stdio: ['pipe', 'pipe', 'pipe'],
        // Its own process group: a terminal's Ctrl-C reaches only the server, which closes the pool.
        detached: true,
      },
    );
    if (this.options.keepProcessAlive === false) {
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr])
        (stream as unknown as { unref?: () => void } | null)?.unref?.();
    }
    let stderrTail = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
    child.stdin?.on('error', () => {});
    let markReady!: (ready: boolean) => void;
    let markEnded!: () => void;
    const parent: Parent = {
      process: child,
      ready: new Promise<boolean>((resolve) => (markReady = resolve)),
      exited: false,
      ended: new Promise<void>((resolve) => (markEnded = resolve)),
      launches: new Set(),
    };
    let wasReady = false;
    const timer = setTimeout(() => {
      this.options.log.warn(
        { timeoutMs: this.options.readyTimeoutMs ?? 180_000 },
        'warm worker did not get ready in time; it is stopped',
      );
      child.kill('SIGKILL');
    }, this.options.readyTimeoutMs ?? 180_000);
    timer.unref();
    if (child.stdout) {
      createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) => {
        let message: { serve?: string; seconds?: number; skipped?: object } | null;
        try {
          message = JSON.parse(line) as { serve?: string; seconds?: number; skipped?: object } | null;
        } catch {
          return;
        }
        if (message?.serve !== 'ready' || wasReady) return;
        wasReady = true;
        clearTimeout(timer);
        this.options.log.info(
          { pid: child.pid, importSeconds: message.seconds, skipped: message.skipped },
          'warm worker ready',
        );
        markReady(true);
      });
    }
    let ended = false;
    const onEnd = (how: string) => {
      if (ended) return;
      ended = true;
      parent.exited = true;
      markEnded();
      clearTimeout(timer);
      if (this.parent === parent) this.parent = null;
      for (const launch of parent.launches) {
        // A child it forked runs on without anyone to report its exit: it is killed and the job is
        // lost. A launch it had not forked yet is tried again on the next parent.
        if (launch.childPid === undefined) continue;
        launch.parentLost = true;
        launch.kill('SIGKILL');
      }
      const tail = stderrTail.trim().split('\n').slice(-5).join(' | ');
      if (!wasReady) {
        markReady(false);
        if (!this.closing) {
          this.cold = new ColdWorkerLauncher(this.options.python, this.options.env);
          this.options.log.warn(
            { how, stderr: tail },
            'warm worker could not start; every job now starts a fresh Python (cold)',
          );
        }
        return;
      }
      if (this.closing) return;
      const now = Date.now();
      this.deaths = [...this.deaths.filter((at) => now - at < RESTART_WINDOW_MS), now];
      if (this.deaths.length > MAX_RESTARTS) {
        this.cold = new ColdWorkerLauncher(this.options.python, this.options.env);
        this.options.log.error(
          { how, stderr: tail, deaths: this.deaths.length },
          'warm worker keeps ending; every job now starts a fresh Python (cold)',
        );
        return;
      }
      this.options.log.error({ how, stderr: tail }, 'warm worker ended; starting it again');
      this.start();
    };
    child.once('error', (error) => onEnd(error.message));
    child.once('exit', (code, signal) => onEnd(signal ? `killed by ${signal}` : `exited with code ${code}`));
    this.parent = parent;
    return parent;
  }

  /** Another process's parent (attachTo): ready as far as this pool knows until a connection fails. */
  private attach(socket: string): Parent {
    this.options.log.info(
      { socket },
      'warm worker: forking jobs from a preloaded worker another process runs',
    );
    const parent: Parent = {
      process: null,
      ready: Promise.resolve(true),
      exited: false,
      // Never awaited: a launch on it that forks nothing gives it up at once (detach) instead of waiting.
      ended: new Promise<void>(() => undefined),
      launches: new Set(),
    };
    this.parent = parent;
    return parent;
  }

  /** Gives up an attached parent that cannot be reached: from now on every launch goes cold. */
  private detach(parent: Parent, how: string): void {
    if (parent.exited) return;
    parent.exited = true;
    if (this.parent === parent) this.parent = null;
    this.cold = new ColdWorkerLauncher(this.options.python, this.options.env);
    this.options.log.warn(
      { socket: this.socketPath, how },
      'the preloaded worker at WORKER_SERVE_SOCKET cannot be reached; every job now starts a fresh Python (cold)',
    );
  }

  /** The ready parent, starting one if needed; null when launches go cold (or the pool is closing). */
  private async readyParent(): Promise<Parent | null> {
    for (;;) {
      if (this.cold || this.closing) return null;
      const parent = this.parent ?? this.start();
      if ((await parent.ready) && !parent.exited) return parent;
      // It ended: a restarted parent (or the cold fallback) is there now.
    }
  }

  private async run(
    launch: WarmLaunch,
    options: WorkerLaunch,
    env: Record<string, string> | undefined,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const parent = await this.readyParent();
      if (launch.pendingSignal) {
        // Stopped before a process existed: nothing ran.
        launch.reaped = true;
        return launch.resolve({ code: null, signal: launch.pendingSignal, stderrTail: '' });
      }
      if (!parent) {
        if (this.closing) {
          launch.reaped = true;
          return launch.resolve({ code: -1, signal: null, stderrTail: 'The worker pool was closed' });
        }
        const cold = env ? new ColdWorkerLauncher(this.options.python, env) : this.cold!;
        launch.delegate = cold.launch(options);
        return launch.resolve(await launch.delegate.done);
      }
      const exit = await this.runOn(parent, launch, options, env, attempt < CONNECT_ATTEMPTS);
      if (exit) return launch.resolve(exit);
    }
  }

  /** One connection to `parent`: the exit, or null to try again (the child was never forked). */
  private async runOn(
    parent: Parent,
    launch: WarmLaunch,
    options: WorkerLaunch,
    env: Record<string, string> | undefined,
    mayRetry: boolean,
  ): Promise<WorkerExit | null> {
    const stderrPath = path.join(this.dir, `stderr-${++this.sequence}.log`);
    const request = {
      command: options.command,
      args: options.command === 'run' ? runArguments(env ?? this.options.env) : [],
      input: options.input,
      stderr_path: stderrPath,
      // Settings of its own: the child gets the whole environment a fresh worker process would have
      // (always on another process's parent, which was started with that process's environment).
      ...(env || this.options.attachTo ? { env: pythonEnv(env ?? this.options.env) } : {}),
    };
    parent.launches.add(launch);
    const socket = net.createConnection(this.socketPath);
    const state: {
      exit: { code: number | null; signal: NodeJS.Signals | null } | null;
      refusal: string | null;
    } = { exit: null, refusal: null };
    socket.on('error', () => {
      // A refused or broken connection ends the lines; what was (not) received tells what happened.
    });
    let chain: Promise<void> = Promise.resolve();
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (launch.childPid === undefined || line.startsWith('{"qmlstudio_serve"')) {
        const message = parseServeLine(line);
        if (message?.pid !== undefined && launch.childPid === undefined) launch.started(message.pid);
        else if (message?.exit) {
          state.exit = message.exit;
          launch.reaped = true; // the parent has reaped the child: its group id is free for reuse
        } else if (message?.error) state.refusal = message.error;
        return;
      }
      if (line === '') return; // the newline the parent writes before its exit line
      chain = chain.then(() => options.onLine?.(line)).catch(() => undefined);
    });
    // readline forwards the socket's error (a refused connection: no 'end', so no 'close' of its own).
    lines.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => {
      lines.once('close', resolve);
      socket.once('close', () => resolve());
    });
    socket.write(`${JSON.stringify(request)}\n`);
    await closed;
    socket.destroy();
    parent.launches.delete(launch);
    await chain;
    launch.reaped = true;
    const stderrTail = readTail(stderrPath);
    rmSync(stderrPath, { force: true });
    if (state.exit) return { ...state.exit, stderrTail };
    if (state.refusal) {
      return { code: -1, signal: null, stderrTail: `warm worker refused the launch: ${state.refusal}` };
    }
    if (launch.childPid === undefined && !launch.pendingSignal && parent.process === null) {
      // Another process's parent that forked nothing: it is gone (or was never there). Go cold.
      this.detach(parent, 'the connection ended before a child was forked');
      launch.reaped = false;
      return null;
    }
    if (launch.childPid === undefined && !launch.pendingSignal && mayRetry) {
      // No child was forked, so nothing ran: the parent ended (or its socket was gone). Once its end
      // is seen (a restarted parent, or the cold fallback, is then in place), go again.
      await Promise.race([parent.ended, delay(5000)]);
      launch.reaped = false;
      return null;
    }
    // The parent ended while the job ran (or the connection broke without its exit status): no exit
    // of the job's own to report (a SIGKILL here would read as out of memory), so no code, no signal.
    const lost =
      launch.parentLost || parent.exited
        ? WORKER_LOST_MESSAGE
        : 'The warm worker connection ended without the exit status';
    return { code: null, signal: null, stderrTail, lost };
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function parseServeLine(
  line: string,
): { pid?: number; exit?: { code: number | null; signal: NodeJS.Signals | null }; error?: string } | null {
  try {
    const parsed = JSON.parse(line) as { qmlstudio_serve?: object };
    return (parsed.qmlstudio_serve as ReturnType<typeof parseServeLine>) ?? null;
  } catch {
    return null;
  }
}

/** The last few kilobytes of a file ('' when it does not exist). */
function readTail(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, STDERR_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
