import type { FastifyBaseLogger } from 'fastify';
import type { Problem, Registry } from '../../src/engine';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import type { UserRecord } from '../auth/users-repository';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerExit, WorkerHandle } from '../jobs/worker-process';
import { parseWorkerLine } from '../jobs/worker-protocol';

/** The request: the job body execute-job would take, and the dataset's rows when the client knows them. */
export interface EstimateBody {
  params: Record<string, unknown>;
  rows?: number;
}

/** The worker's estimate (resource_estimate.py); the always-present fields typed, the rest passed on. */
export type EstimateData = {
  problem: string;
  model: string;
  qubits: number;
  depth: number;
  two_qubit_gates: number;
} & Record<string, unknown>;

const isEstimate = (data: Record<string, unknown>): data is EstimateData =>
  typeof data.problem === 'string' &&
  typeof data.model === 'string' &&
  ['qubits', 'depth', 'two_qubit_gates'].every((key) => typeof data[key] === 'number');

export type EstimateOutcome =
  | { ok: true; data: EstimateData }
  | { ok: false; status: 400 | 404 | 502; detail: string; errors?: { field: string; message: string }[] };

const DEFAULT_TIMEOUT_SECONDS = 120;

/**
 * Resource estimate of a quantum job before it runs (issue #12): the worker's `estimate` command builds the
 * circuit the body's model would run, transpiles it for the chosen simulator and times this machine's
 * simulation of it (worker/qmlstudio_worker/quantum/resource_estimate.py). Its own process per request,
 * as inference; a body without a circuit is a 400 naming /params, never a 500.
 */
export class ResourceEstimateService {
  private readonly running = new Set<WorkerHandle>();

  constructor(
    private readonly deps: { registry: Registry; launcher: WorkerLauncher; log: FastifyBaseLogger },
    private readonly options: { timeoutSeconds?: number } = {},
  ) {}

  /** The problems whose files define a job (the worker says which of them have a quantum model). */
  problems(): Problem[] {
    return this.deps.registry.problems.filter((problem) => problem.job !== undefined);
  }

  async estimate(
    caller: UserRecord,
    problemId: string,
    userId: number,
    body: EstimateBody,
  ): Promise<EstimateOutcome> {
    if (caller.id !== userId) return { ok: false, status: 404, detail: USER_NOT_FOUND };
    const seen: {
      result: Record<string, unknown> | null;
      failure: { message: string; kind: string } | null;
    } = { result: null, failure: null };
    const handle = this.deps.launcher.launch({
      command: 'estimate',
      input: { kind: problemId, params: body.params, rows: body.rows ?? null },
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
        status: 502,
        detail: `The estimate took longer than ${timeoutSeconds} s and was stopped`,
      };
    }
    if (exit.code === 0 && seen.result && isEstimate(seen.result)) return { ok: true, data: seen.result };
    if (seen.failure?.kind === 'validation') {
      const message = seen.failure.message;
      return { ok: false, status: 400, detail: message, errors: [{ field: '/params', message }] };
    }
    this.deps.log.warn({ exit, failure: seen.failure }, 'resource estimate failed');
    const how = seen.failure?.message ?? `the worker ended with exit code ${exit.code ?? 'unknown'}`;
    return { ok: false, status: 502, detail: `The resource estimate failed: ${how}` };
  }

  /** Ends the estimates still running (shutdown). */
  close(): void {
    for (const handle of this.running) handle.kill('SIGKILL');
  }
}
