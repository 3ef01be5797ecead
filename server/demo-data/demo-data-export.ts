import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Registry } from '../../src/engine';
import type { Queryable } from '../db/database';
import { jobResultOf } from '../jobs/job-result';
import { JobStatus } from '../jobs/job-states';
import { demoFile, INDEX_FILE } from './demo-data-store';

/** How many completed outputs of each example application the landing compares (spec: two each). */
export const OUTPUTS_PER_PROBLEM = 2;

interface OutputRow {
  id: string;
  kind: string;
  status: string;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  execution_time: number | null;
}

interface ExampleApplication {
  id: string;
  app_name: string;
  app_problem_id: string;
}

export interface ExportReport {
  /** Per problem id: the application exported and its output ids; empty when there was nothing. */
  exported: { problemId: string; applicationId: number; outputIds: number[] }[];
  /** Why nothing was exported (nothing written then). */
  nothing?: string;
}

export const NOTHING_TO_EXPORT =
  'Nothing to export: no example application has a completed output yet; run one from the Example Gallery. The demo data routes keep answering 404 until then.';

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

/**
 * The example application of a problem: the applications named as its example (what Start and
 * Copy to profile create), the one with the most completed outputs, the newest on a tie.
 */
async function exampleApplication(db: Queryable, problemId: string, appName: string) {
  const { rows } = await db.query<ExampleApplication & { outputs: string }>(
    `select a.id, a.app_name, a.app_problem_id, count(j.id) as outputs
       from applications a join jobs j on j.application_id = a.id and j.status = $3
      where a.app_problem_id = $1 and a.app_name = $2
      group by a.id order by count(j.id) desc, a.id desc limit 1`,
    [problemId, appName, JobStatus.completed],
  );
  return rows[0];
}

async function completedOutputs(db: Queryable, applicationId: string) {
  const { rows } = await db.query<OutputRow>(
    `select id, kind, status, params, result, created_at, started_at, finished_at, execution_time
       from jobs where application_id = $1 and status = $2 order by id desc`,
    [applicationId, JobStatus.completed],
  );
  return rows;
}

async function eventsOf(db: Queryable, jobId: string) {
  const { rows } = await db.query<{ type: string; payload: unknown }>(
    `select type, payload from job_events where job_id = $1 and type in ('metric', 'chart') order by seq`,
    [jobId],
  );
  return rows;
}

async function tablesExist(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ ok: boolean }>(
    `select to_regclass('applications') is not null
        and exists (select 1 from information_schema.columns
                     where table_name = 'jobs' and column_name = 'application_id') as ok`,
  );
  return Boolean(rows[0]?.ok);
}

/**
 * Writes the landing page's demo data from completed runs of the example applications: for each
 * problem with an example, records.json (the application's completed outputs), the detail and the
 * record of its latest OUTPUTS_PER_PROBLEM outputs, and compare.json (those outputs side by side);
 * index.json last. Each file is the reply's envelope, so the routes send the bytes as they are.
 * With nothing to export it writes nothing (the routes keep saying so).
 */
export async function exportDemoData(
  db: Queryable,
  registry: Registry,
  outDir: string,
): Promise<ExportReport> {
  if (!(await tablesExist(db))) return { exported: [], nothing: NOTHING_TO_EXPORT };
  const found: { problemId: string; app: ExampleApplication; outputs: OutputRow[] }[] = [];
  for (const example of registry.listExamples()) {
    const app = await exampleApplication(db, example.problemId, example.appName);
    if (app) found.push({ problemId: example.problemId, app, outputs: await completedOutputs(db, app.id) });
  }
  if (found.length === 0) return { exported: [], nothing: NOTHING_TO_EXPORT };

  const write = (relative: string, data: unknown) => {
    const file = path.join(outDir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify({ success: true, data }, null, 2)}\n`);
  };
  rmSync(path.join(outDir, INDEX_FILE), { force: true });
  const exported: ExportReport['exported'] = [];
  for (const { problemId, app, outputs } of found) {
    rmSync(path.join(outDir, problemId), { recursive: true, force: true });
    const application = { id: Number(app.id), app_name: app.app_name, problem_id: problemId };
    const record = (row: OutputRow) => ({
      id: Number(row.id),
      name: `${app.app_name} #${row.id}`,
      status: row.status,
      created_at: iso(row.created_at),
      completed_at: iso(row.finished_at),
    });
    write(demoFile.records(problemId), { application, records: outputs.map(record) });
    const compared = outputs.slice(0, OUTPUTS_PER_PROBLEM);
    for (const row of compared) {
      const result = jobResultOf(row);
      write(demoFile.detail(problemId, Number(row.id)), {
        ...record(row),
        application,
        kind: row.kind,
        params: row.params,
        started_at: iso(row.started_at),
        execution_time: row.execution_time,
        result: row.result,
      });
      write(demoFile.record(problemId, Number(row.id)), {
        ...record(row),
        metrics: result?.metrics ?? null,
        events: await eventsOf(db, row.id),
      });
    }
    write(demoFile.compare(problemId), {
      application,
      outputs: compared.map((row) => {
        const result = jobResultOf(row);
        return {
          ...record(row),
          model_type: row.params.model_type ?? result?.model_type ?? null,
          metrics: result?.metrics ?? null,
          training_data: result?.training_data ?? null,
          losses: result?.losses ?? null,
          confusion_matrix: result?.confusion_matrix ?? null,
        };
      }),
    });
    exported.push({
      problemId,
      applicationId: Number(app.id),
      outputIds: compared.map((row) => Number(row.id)),
    });
  }
  write(INDEX_FILE, { generated_at: new Date().toISOString(), problems: exported });
  return { exported };
}
