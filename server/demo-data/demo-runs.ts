// The landing page's example runs: on the first start the server runs each example application that
// runs through execute-job (the problem file's example, seeded, its training capped short) under the landing
// demo's system account, at the lowest queue priority, so that the landing page's Performance
// Comparison and Result Interpretation show real outputs from a fresh install. A run is made once
// per installation and again when its example's definition changes (a hash of it); a run that ended
// Failed or Manual Stop is tried again at the next start.

import { createHash } from 'node:crypto';
import {
  createExampleAppData,
  getPointer,
  setFieldValue,
  validateAppData,
  type AppData,
  type EngineContext,
  type Problem,
} from '../../src/engine';
import type { ApplicationsRepository } from '../applications/applications-repository';
import type { UsersRepository, UserRecord } from '../auth/users-repository';
import type { Database } from '../db/database';
import { LOWEST_PRIORITY } from '../jobs/job-queue';
import { JobStatus } from '../jobs/job-states';
import type { OutputsService } from '../outputs/outputs-service';

/** The refusal of a run whose sample dataset is not written yet (server/datasets/dataset-resolver.ts). */
const SAMPLE_NOT_THERE = /There is no sample dataset named/;

/** Bumped when what a demo run is made of changes beyond its example (then every example runs again). */
const DEMO_RUN_VERSION = 1;

/**
 * Upper bounds of the examples' training lengths for the landing runs, by form field (never by
 * problem): the examples train for minutes at their own settings (a hybrid forecaster 50 epochs, a
 * variational classifier 100 optimizer steps, an image classifier 20 epochs over 100 slices), and
 * the landing page must show real results within a few minutes of a first start on a small machine.
 * A value already below its bound is kept.
 */
export const SMALL_SETTINGS: Readonly<Record<string, number>> = {
  '/model_configurations/epochs': 6,
  '/model_configurations/optimizer_step': 20,
  '/dataset/training_range/to_index': 40,
};

/**
 * The example's app_data for its landing run: first the example's own landing settings (its
 * `landingSettings`, e.g. a cheaper model its form offers), then the training lengths capped at
 * SMALL_SETTINGS where the example sets no landing value.
 */
export function smallExampleAppData(problem: Problem): { appName: string; appData: AppData } {
  const { appName, appData: example, context } = createExampleAppData(problem);
  const landing = problem.example.landingSettings ?? {};
  const withLanding = Object.entries(landing).reduce(
    (appData, [pointer, value]) => trySetting(problem, appData, context, pointer, value),
    example,
  );
  const bounds = Object.fromEntries(
    Object.entries(SMALL_SETTINGS).filter(([pointer]) => !(pointer in landing)),
  );
  return { appName, appData: capTraining(problem, withLanding, context, bounds) };
}

/**
 * `appData` with each field of `bounds` (by form pointer) at most its bound: a value already below
 * is kept, and so is one the form would refuse at the bound (a minimum, a multiple).
 */
export function capTraining(
  problem: Problem,
  appData: AppData,
  context: EngineContext,
  bounds: Readonly<Record<string, number>>,
): AppData {
  let capped = appData;
  for (const [pointer, bound] of Object.entries(bounds)) {
    const value = getPointer(capped, pointer);
    if (typeof value === 'number' && value > bound)
      capped = trySetting(problem, capped, context, pointer, bound);
  }
  return capped;
}

/** `appData` with `pointer` set to `value`, or unchanged when the problem's form refuses that value. */
function trySetting(
  problem: Problem,
  appData: AppData,
  context: EngineContext,
  pointer: string,
  value: unknown,
): AppData {
  // setFieldValue applies the branch defaults a changed choice brings (a model's own fields).
  const changed = setFieldValue(problem, appData, pointer, value, context);
  const refused = validateAppData(problem, changed, context).errors.some((error) =>
    error.path.startsWith(pointer),
  );
  return refused ? appData : changed;
}

export interface DemoRunRow {
  problem_id: string;
  definition_sha256: string;
  application_id: string | number | null;
  job_id: string | number | null;
  status: string | null;
}

export interface DemoRunReport {
  /** Problems whose example was queued now, with the new output's id. */
  queued: { problemId: string; outputId: number }[];
  /** Problems whose run is current (queued, running or Completed with the same definition). */
  current: string[];
  /** Problems whose run could not be queued, and why (logged; the landing tab says it failed). */
  refused: { problemId: string; reason: string }[];
}

/** The sha256 of what a problem's demo run is made of: its example, the small settings, this module's version. */
export function exampleDefinitionHash(problem: Problem): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        version: DEMO_RUN_VERSION,
        problem: problem.id,
        example: problem.example,
        small: SMALL_SETTINGS,
      }),
    )
    .digest('hex');
}

export class DemoRuns {
  constructor(
    private readonly deps: {
      db: Database;
      users: UsersRepository;
      applications: ApplicationsRepository;
      outputs: OutputsService;
      /** The system account that owns the runs: the landing demo's (no password, disabled, no role). */
      ownerEmail: string;
      log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
    },
  ) {}

  /** The problems whose examples the landing page shows: listed ones that run through execute-job. */
  problems(): Problem[] {
    return this.deps.outputs.executableProblems().filter((problem) => problem.listed);
  }

  /** The system account that owns the runs (migration 0020: no password, disabled, no role). */
  async owner(): Promise<UserRecord> {
    const owner = await this.deps.users.findByEmail(this.deps.ownerEmail);
    if (!owner) throw new Error(`the demo runs' owner ${this.deps.ownerEmail} is missing (migration 0020)`);
    return owner;
  }

  async rows(): Promise<DemoRunRow[]> {
    const { rows } = await this.deps.db.query<DemoRunRow>(
      `select d.problem_id, d.definition_sha256, d.application_id, d.job_id, j.status
         from demo_results d left join jobs j on j.id = d.job_id order by d.problem_id`,
    );
    return rows;
  }

  private retry: ReturnType<typeof setTimeout> | null = null;

  /**
   * start(), then again every `everyMs` while an example could not be queued, at most `tries` times;
   * an example refused only because its sample dataset is not there yet is tried until it is queued
   * (on a fresh `make run` the brain tumor .mat sample is written in the background after the server
   * starts, and may take longer than the tries on a loaded machine). A later start tries again too.
   */
  async startAndRetry(tries = 10, everyMs = 60_000): Promise<DemoRunReport> {
    const report = await this.start();
    const waitingForSample = report.refused.some((refusal) => SAMPLE_NOT_THERE.test(refusal.reason));
    if (report.refused.length > 0 && (tries > 1 || waitingForSample) && !this.stopped) {
      this.retry = setTimeout(() => {
        this.startAndRetry(Math.max(tries - 1, 1), everyMs)
          .then((next) => {
            for (const { problemId, outputId } of next.queued)
              this.deps.log.info(
                { problem: problemId, outputId },
                'landing example run queued on a later try',
              );
          })
          .catch((error: unknown) =>
            this.deps.log.warn({ error: String(error) }, 'the landing example runs could not be queued'),
          );
      }, everyMs);
      this.retry.unref();
    }
    return report;
  }

  private stopped = false;

  /** No more retries (shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
  }

  /** Queues every example whose run is missing, outdated or ended without a result. */
  async start(): Promise<DemoRunReport> {
    const owner = await this.owner();
    const existing = new Map((await this.rows()).map((row) => [row.problem_id, row]));
    const report: DemoRunReport = { queued: [], current: [], refused: [] };
    for (const problem of this.problems()) {
      const sha256 = exampleDefinitionHash(problem);
      const row = existing.get(problem.id);
      const ended = row?.status === JobStatus.failed || row?.status === JobStatus.manualStop;
      if (row && row.definition_sha256 === sha256 && row.status !== null && !ended) {
        report.current.push(problem.id);
        continue;
      }
      try {
        const outputId = await this.run(owner, problem, sha256, row);
        report.queued.push({ problemId: problem.id, outputId });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (SAMPLE_NOT_THERE.test(reason))
          this.deps.log.info(
            { problem: problem.id, reason },
            'the landing example run waits for its sample dataset (being written): tried again every minute',
          );
        else
          this.deps.log.warn({ problem: problem.id, reason }, 'the landing example run could not be queued');
        report.refused.push({ problemId: problem.id, reason });
      }
    }
    return report;
  }

  private async run(
    owner: UserRecord,
    problem: Problem,
    sha256: string,
    previous: DemoRunRow | undefined,
  ): Promise<number> {
    // The previous run's application (and its outputs and files) makes way for the new one.
    if (previous?.application_id !== null && previous?.application_id !== undefined) {
      const appId = Number(previous.application_id);
      await this.deps.outputs.removeAllOfApplication(appId);
      await this.deps.applications.delete(appId);
    }
    const { appName, appData } = smallExampleAppData(problem);
    const app = await this.deps.applications.create({
      userId: owner.id,
      appName,
      appProblemId: problem.id,
      status: 'active',
      appData,
    });
    const outcome = await this.deps.outputs.runSaved(owner, problem, app.id, { priority: LOWEST_PRIORITY });
    if (!outcome.ok) {
      await this.deps.applications.delete(app.id);
      throw new Error(outcome.message);
    }
    await this.deps.db.query(
      `insert into demo_results (problem_id, definition_sha256, application_id, job_id, requested_at)
       values ($1, $2, $3, $4, now())
       on conflict (problem_id) do update set definition_sha256 = excluded.definition_sha256,
         application_id = excluded.application_id, job_id = excluded.job_id, requested_at = now()`,
      [problem.id, sha256, app.id, outcome.outputId],
    );
    return outcome.outputId;
  }
}
