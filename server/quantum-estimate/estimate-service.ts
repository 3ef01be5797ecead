import type { FastifyBaseLogger } from 'fastify';
import { validateJobBody, type Problem, type Registry } from '../../src/engine';
import { USER_NOT_FOUND } from '../accounts/accounts-service';
import type { UserRecord } from '../auth/users-repository';
import { callWorker, workerFailureReason } from '../jobs/worker-call';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';

/** The request: the job body execute-job would take, and the dataset's rows when the client knows them. */
export interface EstimateBody {
  params: Record<string, unknown>;
  rows?: number;
  /** The job extension's quantum_noise_model (the body has no field for it). */
  noise_model?: string | null;
  /** The job extension's repeats (1..10): the worker reports per-run figures and the totals of all runs. */
  repeats?: number;
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
 * Resource estimate of a quantum job before it runs: the worker's `estimate` command builds the
 * circuit the body's model would run, counts it as the run applies it (u and cx on the ideal
 * simulators, transpiled for the snapshot of a noise model's or a device's IBM device) and times this
 * machine's simulation of it
 * (worker/qmlstudio_worker/jobs/resource_estimate.py). Its own process per request, as inference; a body
 * without a circuit is a 400 naming /params, never a 500.
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
    // The body execute-job would take, checked as a run checks it: the worker reads only valid bodies
    // (a malformed one ended it with exit code 1, answered 502).
    const problem = this.problems().find((p) => p.id === problemId);
    const check = problem ? validateJobBody(problem, body.params) : null;
    if (check && !check.valid) {
      const errors = check.errors.map((e) => ({
        field: `/params${e.path}`,
        message: `/params${e.path} ${e.message}`,
      }));
      return { ok: false, status: 400, detail: errors.map((e) => e.message).join('; '), errors };
    }
    const call = await callWorker(this.deps.launcher, this.running, {
      command: 'estimate',
      input: {
        kind: problemId,
        params: body.params,
        rows: body.rows ?? null,
        noise_model: body.noise_model ?? null,
        repeats: body.repeats ?? 1,
      },
      timeoutSeconds: this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    });
    if (call.timedOut) {
      return {
        ok: false,
        status: 502,
        detail: `The estimate took longer than ${call.timeoutSeconds} s and was stopped`,
      };
    }
    if (call.exit.code === 0 && call.result && isEstimate(call.result))
      return { ok: true, data: call.result };
    if (call.failure?.kind === 'validation') {
      const message = call.failure.message;
      return { ok: false, status: 400, detail: message, errors: [{ field: '/params', message }] };
    }
    this.deps.log.warn({ exit: call.exit, failure: call.failure }, 'resource estimate failed');
    return { ok: false, status: 502, detail: `The resource estimate failed: ${workerFailureReason(call)}` };
  }

  /** Ends the estimates still running (shutdown). */
  close(): void {
    for (const handle of this.running) handle.kill('SIGKILL');
  }
}
