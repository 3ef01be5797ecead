import { startWorker, type WorkerHandle } from './worker-process';

/** One worker command: a job to run, or a trained model to apply (inference). */
export interface WorkerLaunch {
  command: 'run' | 'infer' | 'forecast' | 'estimate' | 'devices' | 'predict' | 'mat-inspect';
  /** Written to the worker as JSON (the job envelope, or the inference request). */
  input: unknown;
  /** Every stdout line, in order; may be async (lines are handed over one at a time). */
  onLine?: (line: string) => Promise<void> | void;
}

/**
 * Starts worker commands, each in its own process (stop and crash isolation per job). The cold
 * launcher starts a fresh Python each time; the warm pool (warm-worker-pool.ts) forks a preloaded
 * parent, so a job starts without importing torch and qiskit again.
 */
export interface WorkerLauncher {
  readonly kind: 'cold' | 'warm';
  launch(options: WorkerLaunch): WorkerHandle;
  close(): Promise<void>;
}

/** `python -m qmlstudio_worker <command>` per launch. */
export class ColdWorkerLauncher implements WorkerLauncher {
  readonly kind = 'cold' as const;
  constructor(
    private readonly python: string,
    /** Set on every worker's environment (the file store's settings). */
    private readonly env: Record<string, string> = {},
  ) {}

  launch(options: WorkerLaunch): WorkerHandle {
    return startWorker({ python: this.python, env: this.env, ...options });
  }

  async close(): Promise<void> {}
}
