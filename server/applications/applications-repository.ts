import type { Database } from '../db/database';
import { ReadCache } from '../db/read-cache';
import type { JobRecord } from '../jobs/jobs-repository';
import { modelTypeOf, resultTypeOf, type ResultType } from '../outputs/output-detail';

type JobShape = Pick<JobRecord, 'kind' | 'params' | 'result'>;

/** An application row; the timestamps are ISO strings (the server's clock, never the client's). */
export interface ApplicationRecord {
  id: number;
  user_id: number;
  app_name: string;
  app_problem_id: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface ApplicationWithData extends ApplicationRecord {
  app_data: Record<string, unknown>;
}

/** An output of an application: a job that ran it. */
export interface OutputRecord {
  id: number;
  name: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  application_id: number;
  /** The model the run trains (LSTM, Quantum, VQE, ...), null when unknown. */
  trained_model_type: string | null;
  /** Training or Prediction for a problem that predicts (or whose result says); null for the others. */
  result_type: ResultType | null;
  /** Seconds from running to the final status; null until then. */
  execution_time: number | null;
}

const COLUMNS = 'id, user_id, app_name, app_problem_id, status, created_at, updated_at';

/** The outputs list's columns of a jobs row: the result without its largest parts, which the list does not show. */
const OUTPUT_COLUMNS = `id, coalesce(name, params->>'name', kind) as name, status, created_at,
  finished_at as completed_at, application_id, execution_time, kind, params,
  result - 'charts' - 'selection' - 'training_data' - 'prediction' - 'run_record' as result`;

type OutputRow = Row<Omit<OutputRecord, 'trained_model_type' | 'result_type'>> & {
  kind: JobShape['kind'];
  params: JobShape['params'];
  result: JobShape['result'];
};

function toOutput(row: OutputRow, problemPredicts: boolean): OutputRecord {
  return {
    id: Number(row.id),
    name: row.name,
    status: row.status,
    created_at: iso(row.created_at)!,
    completed_at: iso(row.completed_at),
    application_id: Number(row.application_id),
    trained_model_type: modelTypeOf({ params: row.params ?? {}, result: row.result }),
    result_type: resultTypeOf({ result: row.result }, problemPredicts),
    execution_time: row.execution_time === null ? null : Number(row.execution_time),
  };
}

/** An output as a run to compare: its row with the result's metrics, baseline and losses only. */
export interface RunRecord {
  id: number;
  /** The problem id. */
  kind: string;
  name: string;
  status: string;
  created_at: string;
  execution_time: number | null;
  app_data: Record<string, unknown> | null;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
}

type Row<T> = { [K in keyof T]: K extends `${string}_at` ? Date | string | null : T[K] };

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

function toRecord(row: Row<ApplicationRecord>): ApplicationRecord {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    app_name: row.app_name,
    app_problem_id: row.app_problem_id,
    status: row.status,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

function toDetail(row: Row<ApplicationWithData>): ApplicationWithData {
  return { ...toRecord(row), app_data: row.app_data ?? {} };
}

/** The SQL of applications and their outputs (jobs rows with application_id). */
export class ApplicationsRepository {
  /**
   * The lists, read again after any write to their tables (ReadCache): most list reads repeat one.
   * Their answers are shared between requests: callers read them, never change them.
   */
  private readonly lists: ReadCache<ApplicationRecord[]>;
  private readonly outputLists: ReadCache<Awaited<ReturnType<ApplicationsRepository['readWithOutputs']>>>;

  constructor(private readonly db: Database) {
    this.lists = new ReadCache(db.versions, ['applications'], { maxEntries: 2_000 });
    this.outputLists = new ReadCache(db.versions, ['applications', 'jobs'], { maxEntries: 2_000 });
  }

  async userExists(userId: number): Promise<boolean> {
    const { rows } = await this.db.query('select 1 from users where id = $1', [userId]);
    return rows.length > 0;
  }

  async create(input: {
    userId: number;
    appName: string;
    appProblemId: string;
    status: string;
    appData: object;
  }): Promise<ApplicationWithData> {
    const { rows } = await this.db.query<Row<ApplicationWithData>>(
      `insert into applications (user_id, app_name, app_problem_id, status, app_data)
       values ($1, $2, $3, $4, $5) returning ${COLUMNS}, app_data`,
      [input.userId, input.appName, input.appProblemId, input.status, JSON.stringify(input.appData)],
    );
    return toDetail(rows[0]!);
  }

  /** A user's applications, newest first (id descending), without their app_data. */
  listByUser(userId: number): Promise<ApplicationRecord[]> {
    return this.lists.get(String(userId), async () => {
      const { rows } = await this.db.query<Row<ApplicationRecord>>(
        `select ${COLUMNS} from applications where user_id = $1 order by id desc`,
        [userId],
      );
      return rows.map(toRecord);
    });
  }

  async find(id: number): Promise<ApplicationWithData | null> {
    const { rows } = await this.db.query<Row<ApplicationWithData>>(
      `select ${COLUMNS}, app_data from applications where id = $1`,
      [id],
    );
    return rows[0] ? toDetail(rows[0]) : null;
  }

  /** Replaces app_data whole and stamps updated_at; null when the application is gone. */
  async updateAppData(id: number, appData: object): Promise<ApplicationWithData | null> {
    const { rows } = await this.db.query<Row<ApplicationWithData>>(
      `update applications set app_data = $2, updated_at = now() where id = $1
       returning ${COLUMNS}, app_data`,
      [id, JSON.stringify(appData)],
    );
    return rows[0] ? toDetail(rows[0]) : null;
  }

  /** Deletes the application; its outputs (jobs, their events) go with it (on delete cascade). */
  async delete(id: number): Promise<boolean> {
    const { rows } = await this.db.query('delete from applications where id = $1 returning id', [id]);
    return rows.length > 0;
  }

  /**
   * The application's outputs as runs to compare, newest first: their settings (app_data when each ran),
   * the result's metrics, baseline and per-epoch losses, nothing else of the result.
   */
  async listRuns(applicationId: number): Promise<RunRecord[]> {
    const { rows } = await this.db.query<
      Row<RunRecord> & { params: JobShape['params']; result: JobShape['result'] }
    >(
      `select id, kind, coalesce(name, kind) as name, status, created_at, execution_time, params, app_data,
              jsonb_build_object('model', result->'model', 'model_type', result->'model_type',
                'metrics', result->'metrics', 'baseline', result->'baseline', 'losses', result->'losses',
                'repeats', jsonb_build_object('count', result->'repeats'->'count', 'losses', result->'repeats'->'losses')) as result
       from jobs where application_id = $1 order by id desc`,
      [applicationId],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind,
      name: row.name,
      status: row.status,
      created_at: iso(row.created_at)!,
      execution_time: row.execution_time === null ? null : Number(row.execution_time),
      app_data: row.app_data,
      params: row.params ?? {},
      result: row.result,
    }));
  }

  /**
   * The application's outputs, newest first. A job's name is its own ('{app_name} #{id}'), else
   * its params' name, else its kind.
   */
  async listOutputs(applicationId: number, problemPredicts = false): Promise<OutputRecord[]> {
    const { rows } = await this.db.query<OutputRow>(
      `select ${OUTPUT_COLUMNS} from jobs where application_id = $1 order by id desc`,
      [applicationId],
    );
    return rows.map((row) => toOutput(row, problemPredicts));
  }

  /**
   * An application's owner and problem with its outputs, newest first, in one round trip (the
   * outputs list is read often; on the embedded database every query waits its turn on one
   * connection), remembered until applications or jobs are written. Null when there is no such application.
   */
  findWithOutputs(
    applicationId: number,
    problemPredicts: (problemId: string) => boolean,
  ): Promise<{ userId: number; problemId: string; outputs: OutputRecord[] } | null> {
    return this.outputLists.get(String(applicationId), () =>
      this.readWithOutputs(applicationId, problemPredicts),
    );
  }

  private async readWithOutputs(
    applicationId: number,
    problemPredicts: (problemId: string) => boolean,
  ): Promise<{ userId: number; problemId: string; outputs: OutputRecord[] } | null> {
    const { rows } = await this.db.query<
      { owner_id: string | number; problem_id: string } & { [K in keyof OutputRow]: OutputRow[K] | null }
    >(
      `select a.user_id as owner_id, a.app_problem_id as problem_id, j.*
       from applications a
       left join lateral (
         select ${OUTPUT_COLUMNS} from jobs where application_id = a.id order by id desc
       ) j on true
       where a.id = $1`,
      [applicationId],
    );
    const first = rows[0];
    if (!first) return null;
    const predicts = problemPredicts(first.problem_id);
    return {
      userId: Number(first.owner_id),
      problemId: first.problem_id,
      // An application without outputs is one row whose output columns are all null.
      outputs: rows.filter((row) => row.id !== null).map((row) => toOutput(row as OutputRow, predicts)),
    };
  }
}
