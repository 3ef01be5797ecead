import type { FastifyBaseLogger } from 'fastify';
import type { JobEventBus } from './job-event-bus';
import { jobResultOf } from './job-result';
import { JobStatus, type JobStatusValue } from './job-states';
import type { JobRecord, JobsRepository } from './jobs-repository';
import { withProviderToken, type ProviderTokenLookup } from '../quantum-devices/provider-token';
import { buildJobEnvelope, parseWorkerLine, type JobEnvelope } from './worker-protocol';
import type { WorkerLauncher } from './worker-launcher';
import type { WorkerExit, WorkerHandle } from './worker-process';
import { MemoryEvidence } from './memory-evidence';
import { openTokens, type TokenSealer } from './sealed-tokens';

export interface JobRunnerOptions {
  /** Starts the worker process of each job (cold: a fresh Python; warm: a fork of a preloaded one). */
  launcher: WorkerLauncher;
  timeoutSeconds: number;
  /** Time a stopped worker gets between SIGTERM and SIGKILL. */
  stopGraceMs?: number;
  /** Where each job's artifacts go: `{outputsDir}/{jobId}` (DATA_DIR/outputs); none when absent. */
  outputsDir?: string;
  /** The owner's stored IBM Quantum token, for device runs without a custom token (never stored). */
  providerToken?: ProviderTokenLookup;
  /** Decrypts the custom IBM token the job row keeps encrypted, for the envelope only. */
  tokenCipher?: TokenSealer;
  /** Tells whether a worker killed from outside ran out of memory (default: kernel log and cgroup). */
  memoryEvidence?: MemoryEvidence;
  /**
   * Asked before each job starts its worker (the job stays Queued meanwhile): null to run it, or the
   * reason it ends Failed without a worker. The server's is the worker runtime check's jobRefusal:
   * it waits for the first `python -m qmlstudio_worker health` after a start and refuses jobs while
   * the last check failed.
   */
  runtimeGate?: () => Promise<string | null>;
}

/** How the reason of a job that ran out of memory (a MemoryError, or a kill the evidence ties to memory) begins. */
export const OUT_OF_MEMORY = 'The job ran out of memory';

/** The reason of a job whose worker got SIGKILL from outside the server without a sign of memory. */
export const KILLED_FROM_OUTSIDE =
  'The worker was ended by SIGKILL from outside the server (not a stop, the time limit or a shutdown); nothing shows it ran out of memory';

interface RunningJob {
  handle: WorkerHandle;
  stopRequested: boolean;
  timedOut: boolean;
  /** Set when the server shuts down while the job runs: the reason it is recorded Failed with. */
  shutdownReason: string | null;
  /** WORKER_TIMEOUT_SECONDS per run: a job repeated with n seeds gets n times as long. */
  limitSeconds: number;
}

/** The extension's repeats (the form's Repeats, 1..10): how many runs the one job makes. */
export function repeatCount(extension: Record<string, unknown> | null | undefined): number {
  const value = extension?.repeats;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10 ? value : 1;
}

/**
 * Runs one job in a Python worker process: records the status timeline and every protocol line,
 * publishes them to subscribers, and ends the job Completed, Failed (with the reason) or Manual Stop.
 */
export class JobRunner {
  private readonly running = new Map<number, RunningJob>();
  /**
   * Jobs recorded Running here whose worker is not launched yet (its envelope is being built): a stop
   * in that window has no process to signal, so it is kept and honoured before the launch.
   */
  private readonly starting = new Map<number, { stopRequested: boolean }>();
  /** Every run() under way, from its first line to its recorded end (shutdown waits for them). */
  private readonly active = new Set<Promise<void>>();
  private shutdownReason: string | null = null;
  /** Resolves when shutdown begins: a job waiting at the runtime gate stops waiting. */
  private shutdownBegun!: () => void;
  private readonly shuttingDown = new Promise<void>((resolve) => (this.shutdownBegun = resolve));

  constructor(
    private readonly jobs: JobsRepository,
    private readonly bus: JobEventBus,
    private readonly options: JobRunnerOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    bus.onStopRequest((jobId) => this.stopLocal(jobId));
  }

  /** The operating-system process id of a job running here (operations and crash tests). */
  pidOf(jobId: number): number | undefined {
    return this.running.get(jobId)?.handle.pid;
  }

  /** Moves a job to a new status (recorded on its timeline) and tells subscribers; false if it had moved on. */
  async transition(
    jobId: number,
    from: readonly string[],
    to: JobStatusValue,
    fields: { result?: object | null; error?: string | null; reason?: string } = {},
  ): Promise<boolean> {
    const event = await this.jobs.transition(jobId, from, to, fields);
    if (event) await this.bus.publish(jobId, event);
    return event !== null;
  }

  /**
   * Stops a job wherever it is: a queued job ends at once; a running one is killed by the process
   * that runs it (maybe another machine), which records Manual Stop.
   */
  async stop(job: JobRecord): Promise<void> {
    const reason = 'Stopped before it started';
    if (await this.transition(job.id, [JobStatus.queued], JobStatus.manualStop, { reason, error: reason }))
      return;
    await this.bus.requestStop(job.id);
  }

  run(jobId: number): Promise<void> {
    // Registered synchronously, so a shutdown that starts right after the call still waits for it.
    const run = this.execute(jobId).finally(() => this.active.delete(run));
    this.active.add(run);
    return run;
  }

  /**
   * Shutdown: every job running here gets SIGTERM to its process group (SIGKILL after the grace
   * time) and is recorded Failed with `reason`; a run that has not started its process yet is
   * recorded Failed too. Resolves when every run has recorded its end and its processes are gone.
   */
  async shutdown(reason = 'Server shut down'): Promise<void> {
    this.shutdownReason = reason;
    this.shutdownBegun();
    for (const entry of this.running.values()) this.stopForShutdown(entry);
    await Promise.allSettled([...this.active]);
  }

  private stopForShutdown(entry: RunningJob) {
    entry.shutdownReason = this.shutdownReason;
    entry.handle.kill('SIGTERM');
    setTimeout(() => entry.handle.kill('SIGKILL'), this.options.stopGraceMs ?? 3000).unref();
  }

  private async execute(jobId: number): Promise<void> {
    const job = await this.jobs.find(jobId);
    if (!job) return;
    if (job.status === JobStatus.running && !this.running.has(jobId)) {
      // BullMQ hands a job out again when the worker that held it stopped renewing its lock.
      const reason = 'The worker running this job was lost';
      await this.transition(jobId, [JobStatus.running], JobStatus.failed, { error: reason, reason });
      return;
    }
    const refusal = await this.runtimeRefusal();
    if (this.shutdownReason) {
      const reason = `${this.shutdownReason} before the job started`;
      await this.transition(jobId, [JobStatus.queued], JobStatus.failed, { error: reason, reason });
      return;
    }
    if (refusal) {
      this.log.error({ jobId, reason: refusal }, 'job refused: the worker runtime does not start');
      await this.transition(jobId, [JobStatus.queued], JobStatus.failed, { error: refusal, reason: refusal });
      return;
    }
    const starting = { stopRequested: false };
    this.starting.set(jobId, starting);
    try {
      await this.runWorker(jobId, job, starting);
    } finally {
      this.starting.delete(jobId);
    }
  }

  /** The runtime gate's answer, or null at once when shutdown begins while it is awaited. */
  private async runtimeRefusal(): Promise<string | null> {
    const gate = this.options.runtimeGate;
    if (!gate) return null;
    return Promise.race([gate().catch(() => null), this.shuttingDown.then(() => null)]);
  }

  /** Records the job Running, builds its envelope, runs its worker and records how it ended. */
  private async runWorker(jobId: number, job: JobRecord, starting: { stopRequested: boolean }) {
    if (!(await this.transition(jobId, [JobStatus.queued], JobStatus.running))) return; // stopped meanwhile

    let input: JobEnvelope;
    try {
      input = await withProviderToken(
        buildJobEnvelope(
          this.options.tokenCipher ? openTokens(job, this.options.tokenCipher) : job,
          this.options.outputsDir,
        ),
        job.owner_id,
        this.options.providerToken,
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error({ jobId, reason }, 'job envelope breaks the worker contract; no worker started');
      await this.transition(jobId, [JobStatus.running], JobStatus.failed, { error: reason, reason });
      return;
    }
    let result: Record<string, unknown> | null = null;
    let reportedError: string | null = null;
    const memoryEvidence = this.options.memoryEvidence ?? new MemoryEvidence();
    const oomKillsBefore = await memoryEvidence.oomKills();
    if (starting.stopRequested) {
      const reason = 'Stopped by the user';
      await this.transition(jobId, [JobStatus.running], JobStatus.manualStop, { error: reason, reason });
      return;
    }
    this.starting.delete(jobId); // from here on a stop signals the worker's process
    const handle = this.options.launcher.launch({
      command: 'run',
      input,
      onLine: async (text) => {
        const line = parseWorkerLine(text);
        if (!line) {
          if (text.trim()) this.log.warn({ jobId, text: text.slice(0, 500) }, 'unparseable worker output');
          return;
        }
        if (line.type === 'result') result = line.data;
        if (line.type === 'error') reportedError = line.message;
        const { type, ...payload } = line;
        const event = await this.jobs.appendEvent(jobId, type, payload);
        await this.bus.publish(jobId, event);
      },
    });
    const entry: RunningJob = {
      handle,
      stopRequested: false,
      timedOut: false,
      shutdownReason: null,
      limitSeconds: this.options.timeoutSeconds * repeatCount(job.extension),
    };
    this.running.set(jobId, entry);
    if (this.shutdownReason) this.stopForShutdown(entry); // shutdown began while it was starting
    const timer = setTimeout(() => {
      entry.timedOut = true;
      handle.kill('SIGKILL');
    }, entry.limitSeconds * 1000);

    let exit: WorkerExit;
    try {
      exit = await handle.done;
    } finally {
      clearTimeout(timer);
      this.running.delete(jobId);
    }
    const killedFromOutside =
      exit.signal === 'SIGKILL' && !entry.stopRequested && !entry.timedOut && !entry.shutdownReason;
    const outOfMemory = killedFromOutside ? await memoryEvidence.explain(handle.pid, oomKillsBefore) : null;
    const { status, reason } = this.outcome(entry, exit, result, reportedError, outOfMemory);
    const failedOrStopped = status !== JobStatus.completed;
    if (!failedOrStopped) await this.logFinalMetrics(jobId, result);
    await this.transition(jobId, [JobStatus.running], status, {
      result,
      ...(failedOrStopped && { error: reason, reason }),
    });
  }

  /**
   * The output's logs hold the run's final metrics (spec workspace.md section 3: "output_logs holds
   * final_metrics"): a result that carries `final_metrics` gets one log line
   * naming each, recorded before the final status so the record and the live stream both show it.
   */
  private async logFinalMetrics(jobId: number, result: Record<string, unknown> | null): Promise<void> {
    const metrics = finalMetricsOf(result);
    if (!metrics) return;
    const event = await this.jobs.appendEvent(jobId, 'log', {
      level: 'info',
      message: finalMetricsMessage(metrics),
      final_metrics: metrics,
    });
    await this.bus.publish(jobId, event);
  }

  private outcome(
    entry: RunningJob,
    exit: WorkerExit,
    result: Record<string, unknown> | null,
    reportedError: string | null,
    outOfMemory: string | null,
  ): { status: JobStatusValue; reason: string } {
    if (entry.stopRequested) return { status: JobStatus.manualStop, reason: 'Stopped by the user' };
    if (entry.shutdownReason) return { status: JobStatus.failed, reason: entry.shutdownReason };
    if (entry.timedOut) {
      return {
        status: JobStatus.failed,
        reason: `The job exceeded its time limit of ${entry.limitSeconds} s and was stopped`,
      };
    }
    if (exit.code === 0 && result) return { status: JobStatus.completed, reason: '' };
    if (exit.lost) return { status: JobStatus.failed, reason: exit.lost };
    // Memory only on evidence: the kernel's record or the control group's count (outOfMemory), or
    // Python's own MemoryError. A SIGKILL nobody here sent may be anyone's kill -9.
    if (outOfMemory || /\bMemoryError\b/.test(reportedError ?? '')) {
      const detail = outOfMemory ?? `the worker reported: ${reportedError!}`;
      return {
        status: JobStatus.failed,
        reason: `${OUT_OF_MEMORY} (${detail}); try fewer rows or a smaller model`,
      };
    }
    if (exit.signal === 'SIGKILL') return { status: JobStatus.failed, reason: KILLED_FROM_OUTSIDE };
    if (reportedError) return { status: JobStatus.failed, reason: reportedError };
    const killed = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const tail = exit.stderrTail.trim().split('\n').slice(-3).join(' | ');
    const reason =
      exit.code === 0
        ? 'The worker ended without a result'
        : `The worker ${killed}${tail ? `: ${tail}` : ''}`;
    return { status: JobStatus.failed, reason };
  }

  private stopLocal(jobId: number): void {
    const entry = this.running.get(jobId);
    if (!entry) {
      const starting = this.starting.get(jobId);
      if (starting) starting.stopRequested = true;
      return;
    }
    entry.stopRequested = true;
    entry.handle.kill('SIGTERM');
    setTimeout(() => entry.handle.kill('SIGKILL'), this.options.stopGraceMs ?? 3000).unref();
  }
}

/** A result's `final_metrics` (the result contract's) when it has finite numbers, else null. */
export function finalMetricsOf(result: Record<string, unknown> | null): Record<string, number> | null {
  const raw = jobResultOf({ result })?.final_metrics ?? {};
  const entries = Object.entries(raw).filter((entry) => Number.isFinite(entry[1]));
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}

/** The log line of the final metrics: "final_metrics: accuracy 0.9167, macro_f1 0.9" (4 decimals at most). */
export function finalMetricsMessage(metrics: Record<string, number>): string {
  const parts = Object.entries(metrics).map(([name, value]) => `${name} ${Number(value.toFixed(4))}`);
  return `final_metrics: ${parts.join(', ')}`;
}
