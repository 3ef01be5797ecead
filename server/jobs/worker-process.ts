import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { DEFAULT_SCHEMAS_DIR } from '../../src/engine/node/load-schemas';
import { pythonEnv } from './python-env';

export const WORKER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../worker');

/** The variable that tells a worker where the server's schemas directory is (the worker reads it too). */
export const WORKER_SCHEMAS_DIR_ENV = 'QMLSTUDIO_SCHEMAS_DIR';

/** The worker environment naming the schemas directory the server loaded (SCHEMAS_DIR). */
export function workerSchemasEnvironment(schemasDir: string): Record<string, string> {
  return { [WORKER_SCHEMAS_DIR_ENV]: schemasDir };
}

/** The `run` arguments: the schemas directory the worker's environment names, else the repository's. */
export function runArguments(env: Record<string, string> | undefined): string[] {
  return ['--schemas-dir', env?.[WORKER_SCHEMAS_DIR_ENV] ?? DEFAULT_SCHEMAS_DIR];
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last few kilobytes the worker wrote on stderr, for the failure reason. */
  stderrTail: string;
  /** Set when the launcher lost the process (a warm parent ended): the whole failure reason. */
  lost?: string;
}

export interface WorkerHandle {
  /** Resolves after the process has exited and every stdout line has been handed over. */
  readonly done: Promise<WorkerExit>;
  readonly pid: number | undefined;
  /** Signals the worker's whole process group. */
  kill(signal: NodeJS.Signals): void;
}

const STDERR_TAIL_BYTES = 4096;

/**
 * Starts `python -m qmlstudio_worker <command>` with `input` as JSON on stdin and calls onLine for
 * every stdout line, in order. onLine may be async: lines are handed over one at a time. A `run` is
 * told the schemas directory the server loaded its problems from, so the worker validates each job
 * body against the very problem files the server serves.
 */
export function startWorker(options: {
  python: string;
  command: 'run' | 'infer' | 'forecast' | 'estimate' | 'devices' | 'predict' | 'mat-inspect' | 'health';
  input?: unknown;
  onLine?: (line: string) => Promise<void> | void;
  /** Set on the worker's environment (the file store's settings, workerStorageEnvironment). */
  env?: Record<string, string>;
}): WorkerHandle {
  // Its own process group (detached), so a stop or a shutdown reaches the processes a job starts
  // too (a shell's children, multiprocessing workers), and a terminal's Ctrl-C reaches only the
  // server, which then stops the jobs itself and records them.
  const args = ['-m', 'qmlstudio_worker', options.command];
  if (options.command === 'run') args.push(...runArguments(options.env));
  const child = spawn(options.python, args, {
    cwd: WORKER_DIR,
    env: pythonEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let groupReaped = false;
  const killGroup = (signal: NodeJS.Signals) => {
    // After the group is reaped its id may be reused by an unrelated process: never signal it again.
    if (child.pid === undefined || groupReaped) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group has no process left.
    }
  };
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  child.stdin.on('error', () => {
    // The process may exit before reading its input; the exit code tells what happened.
  });
  child.stdin.end(options.input === undefined ? '' : JSON.stringify(options.input));

  let chain: Promise<void> = Promise.resolve();
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    chain = chain.then(() => options.onLine?.(line)).catch(() => undefined);
  });
  const linesClosed = new Promise<void>((resolve) => lines.once('close', resolve));

  const done = new Promise<WorkerExit>((resolve) => {
    let spawnError: Error | null = null;
    child.once('error', (error) => {
      spawnError = error;
    });
    // Whatever the worker left behind in its group ends with it: nothing outlives its job (and a
    // leftover holding stdout open would otherwise keep 'close' from ever coming).
    child.once('exit', () => {
      killGroup('SIGKILL');
      groupReaped = true;
    });
    child.once('close', async (code, signal) => {
      await linesClosed;
      await chain;
      if (spawnError) stderrTail = `${stderrTail}${spawnError.message}`;
      resolve({ code: spawnError ? -1 : code, signal, stderrTail });
    });
  });

  return {
    done,
    pid: child.pid,
    kill: killGroup,
  };
}
