// The landing page's demo data, read from the landing demo account's example runs (demo-runs.ts):
// per problem the compare reply (each run with its status, training data facts, losses, confusion
// matrix and the analysis engine's interpretation in both registers), the records, and each run's
// detail and record. Every reply is built from the database as it stands, so a run that finishes
// is seen at the next request; its bytes' hash is the ETag.

import { createHash } from 'node:crypto';
import type { Registry } from '../../src/engine';
import type { UserRecord } from '../auth/users-repository';
import type { Queryable } from '../db/database';
import { jobResultOf, type JobResult } from '../jobs/job-result';
import { JobStatus } from '../jobs/job-states';
import type { JobRecord } from '../jobs/jobs-repository';
import type { OutputDetail } from '../outputs/output-detail';
import type { OutputsService } from '../outputs/outputs-service';
import type { Validators } from '../platform/conditional-get';

/**
 * The class names of a run's confusion matrix, from its confusion-matrix chart's categories; null when
 * the run has no such chart or its categories do not match the matrix (the page then shows numbers).
 */
export function confusionLabels(result: JobResult | null): string[] | null {
  const matrix = result?.confusion_matrix;
  const chart = result?.charts?.find((c) => c.type === 'confusion_matrix');
  if (!matrix || !chart || chart.categories.length !== matrix.length) return null;
  return chart.categories.map(String);
}

/** One demo data reply as sent: its bytes and the validators of a conditional request. */
export interface DemoFile extends Required<Validators> {
  /** The reply's bytes (the envelope), sent as they are. */
  body: Buffer;
}

export type Register = 'technical' | 'non_technical';

/** The analysis engine's report of a Completed output in one register, in Markdown (server/analysis). */
export type Interpret = (
  subject: { job: JobRecord; detail: OutputDetail; problemName: string },
  register: Register,
) => string;

export type DemoRequest =
  | { kind: 'records' | 'compare'; problemId: string }
  | { kind: 'detail' | 'record'; problemId: string; outputId: number };

interface RunRow {
  problem_id: string;
  application_id: string;
  app_name: string;
  id: string;
  kind: string;
  status: string;
  error: string | null;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
  execution_time: number | null;
}

const iso = (date: Date | string | null) => (date ? new Date(date).toISOString() : null);

/** The reply's envelope as bytes, with a strong validator (hash of the bytes) and the run's last change. */
function demoFile(data: unknown, changed: Date): DemoFile {
  const body = Buffer.from(`${JSON.stringify({ success: true, data })}\n`);
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  return { body, etag, lastModified: new Date(Math.floor(changed.getTime() / 1000) * 1000) };
}

export class DemoResultsData {
  /** A Completed run's interpretation never changes: computed once per run and register. */
  private readonly interpretations = new Map<string, string>();

  constructor(
    private readonly deps: {
      db: Queryable;
      registry: Registry;
      outputs: OutputsService;
      /** The account that owns the runs (their outputs are read as their owner). */
      owner: () => Promise<UserRecord>;
      /** Whether the server runs the examples (DEMO_RESULTS); off, a problem without a run says so. */
      enabled: boolean;
      interpret: Interpret;
    },
  ) {}

  /** Why a problem has no demo data: the runs are turned off, or the problem has no example run. */
  missingReason(): string {
    return this.deps.enabled
      ? 'No example run of this problem: the server runs the examples at its first start.'
      : 'The example runs are turned off on this server (DEMO_RESULTS=off).';
  }

  private async run(problemId: string): Promise<RunRow | null> {
    const { rows } = await this.deps.db.query<RunRow>(
      `select d.problem_id, a.id as application_id, a.app_name, j.id, j.kind, j.status, j.error, j.params,
              j.result, j.created_at, j.started_at, j.finished_at, j.execution_time
         from demo_results d
         join applications a on a.id = d.application_id
         join jobs j on j.id = d.job_id
        where d.problem_id = $1`,
      [problemId],
    );
    return rows[0] ?? null;
  }

  async read(request: DemoRequest): Promise<DemoFile | null> {
    const row = await this.run(request.problemId);
    if (!row) return null;
    if ((request.kind === 'detail' || request.kind === 'record') && Number(row.id) !== request.outputId) {
      return null;
    }
    const changed = new Date(row.finished_at ?? row.started_at ?? row.created_at);
    const application = {
      id: Number(row.application_id),
      app_name: row.app_name,
      problem_id: row.problem_id,
    };
    const record = {
      id: Number(row.id),
      name: `${row.app_name} #${row.id}`,
      status: row.status,
      error: row.error,
      created_at: iso(row.created_at),
      completed_at: iso(row.finished_at),
    };
    const result = jobResultOf(row);
    switch (request.kind) {
      case 'records':
        return demoFile({ application, records: [record] }, changed);
      case 'detail':
        return demoFile(
          {
            ...record,
            application,
            kind: row.kind,
            params: row.params,
            started_at: iso(row.started_at),
            execution_time: row.execution_time,
            result: row.result,
          },
          changed,
        );
      case 'record':
        return demoFile(
          { ...record, metrics: result?.metrics ?? null, events: await this.events(row.id) },
          changed,
        );
      case 'compare':
        return demoFile(
          {
            application,
            outputs: [
              {
                ...record,
                model_type: result?.model_type ?? row.params.model_type ?? null,
                model: result?.model ?? null,
                metrics: result?.metrics ?? null,
                baseline: result?.baseline ?? null,
                training_data: result?.training_data ?? null,
                losses: result?.losses ?? null,
                confusion_matrix: result?.confusion_matrix ?? null,
                confusion_labels: confusionLabels(result),
                interpretation:
                  row.status === JobStatus.completed
                    ? {
                        technical: await this.interpretation(row, 'technical'),
                        non_technical: await this.interpretation(row, 'non_technical'),
                      }
                    : null,
              },
            ],
          },
          changed,
        );
    }
  }

  private async events(jobId: string) {
    const { rows } = await this.deps.db.query<{ type: string; payload: unknown }>(
      `select type, payload from job_events where job_id = $1 and type in ('metric', 'chart') order by seq`,
      [jobId],
    );
    return rows;
  }

  /** The analysis engine's report of a Completed run (numbers from its facts only), in Markdown. */
  private async interpretation(row: RunRow, register: Register): Promise<string | null> {
    const key = `${row.id}:${register}`;
    const known = this.interpretations.get(key);
    if (known !== undefined) return known;
    const owner = await this.deps.owner();
    const found = await this.deps.outputs.find(owner, Number(row.id));
    const detail = await this.deps.outputs.detail(owner, Number(row.id));
    if (!found.ok || !detail.ok) return null;
    const problemName = this.deps.registry.findProblem(row.kind)?.name ?? row.kind;
    const markdown = this.deps.interpret({ job: found.value, detail: detail.value, problemName }, register);
    this.interpretations.set(key, markdown);
    return markdown;
  }
}
