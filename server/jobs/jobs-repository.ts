import type { Database, Queryable } from '../db/database';
import { FINAL_STATUSES, JobStatus, type JobStatusValue } from './job-states';
import { CLEAR_TOKEN_PATTERN, sealTokens, type TokenSealer } from './sealed-tokens';

export interface JobRecord {
  id: number;
  kind: string;
  owner_id: number;
  status: JobStatusValue;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  execution_time: number | null;
  /** The application this job ran (an output), or null (e.g. the self-test). */
  application_id: number | null;
  /** The application's app_data when the run was submitted (outputs only). */
  app_data: Record<string, unknown> | null;
  /** What the worker envelope carries beside the body (dataset, preprocessing, seed); {} when none. */
  extension: Record<string, unknown>;
  /** The output's name ('{app_name} #{id}'), or null. */
  name: string | null;
  /** Its place in the queue: 0 for users' jobs, larger for background jobs that run after them. */
  queue_priority: number;
}

/** What a new job is made of; an output also names its application, app_data snapshot and extension. */
export interface NewJob {
  kind: string;
  ownerId: number;
  params: object;
  applicationId?: number | null;
  appData?: object | null;
  extension?: object;
  /** The output's name; `{id}` is replaced by the new job's id. */
  name?: string | null;
  /** The queue priority (job-queue.ts): users' jobs 0, background jobs LOWEST_PRIORITY. */
  priority?: number;
}

export interface JobEventRecord {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  created_at: string;
}

const JOB_COLUMNS = `id, kind, owner_id, status, params, result, error, created_at, started_at, finished_at,
  execution_time, application_id, app_data, extension, name, queue_priority`;

export class JobsRepository {
  /** With `cipher`, a job's custom IBM tokens are stored encrypted (sealed-tokens.ts). */
  constructor(
    private readonly db: Database,
    private readonly cipher?: TokenSealer,
  ) {}

  /** Inserts the job and its first timeline entry (queued). */
  async create(tx: Queryable, input: NewJob): Promise<JobRecord> {
    const { rows } = await tx.query<JobRecord>(
      `insert into jobs (kind, owner_id, params, status, application_id, app_data, extension, name, queue_priority)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${JOB_COLUMNS}`,
      [
        input.kind,
        input.ownerId,
        JSON.stringify(this.cipher ? sealTokens(input.params, this.cipher) : input.params),
        JobStatus.queued,
        input.applicationId ?? null,
        input.appData
          ? JSON.stringify(this.cipher ? sealTokens(input.appData, this.cipher) : input.appData)
          : null,
        JSON.stringify(input.extension ?? {}),
        input.name ?? null,
        input.priority ?? 0,
      ],
    );
    let job = rows[0]!;
    if (job.name?.includes('{id}')) {
      const named = await tx.query<JobRecord>(
        `update jobs set name = replace(name, '{id}', id::text) where id = $1 returning ${JOB_COLUMNS}`,
        [job.id],
      );
      job = named.rows[0]!;
    }
    await tx.query(`insert into job_events (job_id, seq, type, payload) values ($1, 0, 'status', $2)`, [
      job.id,
      JSON.stringify({ status: job.status }),
    ]);
    return job;
  }

  /**
   * Seals the tokens of rows written before job rows were sealed (they kept them in clear): run once
   * at start with the data directory's lasting key. Returns how many rows changed; a second call finds none.
   */
  async sealClearTokens(): Promise<number> {
    const cipher = this.cipher;
    if (!cipher) return 0;
    // Only rows holding a token in clear are read: once they are sealed, a start reads and writes none.
    const { rows } = await this.db.query<Pick<JobRecord, 'id' | 'params' | 'app_data' | 'result'>>(
      `select id, params, app_data, result from jobs
       where params::text ~ $1 or coalesce(app_data::text, '') ~ $1 or coalesce(result::text, '') ~ $1`,
      [CLEAR_TOKEN_PATTERN],
    );
    for (const { id, ...stored } of rows) {
      const sealed = sealTokens(stored, cipher);
      await this.db.query(`update jobs set params = $2, app_data = $3, result = $4 where id = $1`, [
        id,
        JSON.stringify(sealed.params),
        sealed.app_data === null ? null : JSON.stringify(sealed.app_data),
        sealed.result === null ? null : JSON.stringify(sealed.result),
      ]);
    }
    return rows.length;
  }

  async find(id: number): Promise<JobRecord | null> {
    const { rows } = await this.db.query<JobRecord>(`select ${JOB_COLUMNS} from jobs where id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** A page of a user's jobs, newest first: those with an id below `before` (all when null). */
  async listByOwner(ownerId: number, page: { limit: number; before: number | null }): Promise<JobRecord[]> {
    const { rows } = await this.db.query<JobRecord>(
      `select ${JOB_COLUMNS} from jobs where owner_id = $1 and ($2::bigint is null or id < $2)
       order by id desc limit $3`,
      [ownerId, page.before, page.limit],
    );
    return rows;
  }

  /** Every output (job) of an application, oldest first. */
  async listByApplication(applicationId: number): Promise<JobRecord[]> {
    const { rows } = await this.db.query<JobRecord>(
      `select ${JOB_COLUMNS} from jobs where application_id = $1 order by id`,
      [applicationId],
    );
    return rows;
  }

  async listByStatus(statuses: readonly JobStatusValue[]): Promise<JobRecord[]> {
    const { rows } = await this.db.query<JobRecord>(
      `select ${JOB_COLUMNS} from jobs where status = any($1::text[]) order by id`,
      [statuses],
    );
    return rows;
  }

  /**
   * Moves a job from one status to another and records the change on its timeline, atomically.
   * Returns the timeline event, or null when the job was no longer in `from`.
   */
  transition(
    id: number,
    from: readonly string[],
    to: JobStatusValue,
    fields: { result?: object | null; error?: string | null; reason?: string } = {},
  ): Promise<JobEventRecord | null> {
    return this.db.transaction(async (tx) => {
      if (!(await this.updateStatus(tx, id, from, to, fields))) return null;
      return this.appendEvent(
        id,
        'status',
        fields.reason ? { status: to, reason: fields.reason } : { status: to },
        tx,
      );
    });
  }

  private async updateStatus(
    tx: Queryable,
    id: number,
    from: readonly string[],
    to: JobStatusValue,
    fields: { result?: object | null; error?: string | null },
  ): Promise<boolean> {
    // The statuses come from job-states.ts as parameters ($6 running, $7 the final ones).
    const { rows } = await tx.query(
      `update jobs set status = $3,
         started_at = case when $3 = $6 then now() else started_at end,
         finished_at = case when $3 = any($7::text[]) then now() else finished_at end,
         execution_time = case when $3 = any($7::text[]) and started_at is not null
           then extract(epoch from (now() - started_at)) else execution_time end,
         result = coalesce($4::jsonb, result),
         error = coalesce($5, error)
       where id = $1 and status = any($2::text[]) returning id`,
      [
        id,
        from,
        to,
        // the worker's run record repeats the body it ran, token included
        fields.result
          ? JSON.stringify(this.cipher ? sealTokens(fields.result, this.cipher) : fields.result)
          : null,
        fields.error ?? null,
        JobStatus.running,
        FINAL_STATUSES,
      ],
    );
    return rows.length > 0;
  }

  /** Appends an event with the next sequence number; retries when another writer took that number. */
  async appendEvent(
    jobId: number,
    type: string,
    payload: object,
    tx: Queryable = this.db,
  ): Promise<JobEventRecord> {
    for (let attempt = 0; ; attempt++) {
      try {
        const { rows } = await tx.query<JobEventRecord>(
          `insert into job_events (job_id, seq, type, payload)
           select $1, coalesce(max(seq), -1) + 1, $2, $3 from job_events where job_id = $1
           returning seq, type, payload, created_at`,
          [jobId, type, JSON.stringify(payload)],
        );
        return rows[0]!;
      } catch (error) {
        const duplicate = (error as { code?: string }).code === '23505';
        if (!duplicate || attempt >= 5) throw error;
      }
    }
  }

  /** Deletes a job; its events go with it (on delete cascade). */
  async delete(id: number): Promise<boolean> {
    const { rows } = await this.db.query('delete from jobs where id = $1 returning id', [id]);
    return rows.length > 0;
  }

  async events(jobId: number, afterSeq = -1): Promise<JobEventRecord[]> {
    const { rows } = await this.db.query<JobEventRecord>(
      `select seq, type, payload, created_at from job_events where job_id = $1 and seq > $2 order by seq`,
      [jobId, afterSeq],
    );
    return rows;
  }
}
