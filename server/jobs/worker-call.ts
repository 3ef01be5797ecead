import type { ErrorLine } from '../../src/generated/worker-contract';
import type { WorkerLauncher, WorkerLaunch } from './worker-launcher';
import type { WorkerExit, WorkerHandle } from './worker-process';
import { parseWorkerLine } from './worker-protocol';

/** How one short worker command (infer, estimate, devices) ended: its result or error line, and why it stopped. */
export interface WorkerCall {
  exit: WorkerExit;
  result: Record<string, unknown> | null;
  failure: ErrorLine | null;
  /** The call ran past its time limit and was killed; `timeoutSeconds` is that limit. */
  timedOut: boolean;
  timeoutSeconds: number;
}

/**
 * Runs one request-scoped worker command to its end: keeps its result and error lines, kills it after
 * `timeoutSeconds`, and holds its handle in `running` meanwhile so the owning service can end it on shutdown.
 * A job run is not one of these: it streams progress and is owned by the job runner.
 */
export async function callWorker(
  launcher: WorkerLauncher,
  running: Set<WorkerHandle>,
  request: { command: WorkerLaunch['command']; input: unknown; timeoutSeconds: number },
): Promise<WorkerCall> {
  // Filled in by the line handler (an object, so the reads below are not narrowed to null).
  const seen: { result: Record<string, unknown> | null; failure: ErrorLine | null } = {
    result: null,
    failure: null,
  };
  const handle = launcher.launch({
    command: request.command,
    input: request.input,
    onLine: (text) => {
      const line = parseWorkerLine(text);
      if (line?.type === 'result') seen.result = line.data;
      else if (line?.type === 'error') seen.failure = line;
    },
  });
  running.add(handle);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    handle.kill('SIGKILL');
  }, request.timeoutSeconds * 1000);
  let exit: WorkerExit;
  try {
    exit = await handle.done;
  } finally {
    clearTimeout(timer);
    running.delete(handle);
  }
  return { exit, ...seen, timedOut, timeoutSeconds: request.timeoutSeconds };
}

/** Kills every call still in `running` and waits for their processes to end (a service's shutdown). */
export async function endWorkerCalls(running: Set<WorkerHandle>): Promise<void> {
  for (const handle of running) handle.kill('SIGKILL');
  await Promise.all([...running].map((handle) => handle.done));
}

/** Why a call failed, for a 502 detail: the worker's own error message, else how its process ended. */
export function workerFailureReason(call: Pick<WorkerCall, 'exit' | 'failure'>): string {
  if (call.failure) return call.failure.message;
  return call.exit.signal
    ? `the worker was ended by ${call.exit.signal}`
    : `the worker ended with exit code ${call.exit.code ?? 'unknown'}`;
}
