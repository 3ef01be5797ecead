import type { Queryable } from '../db/database';

/** A stored upload: what the server checked of it when it arrived (server/datasets/csv-inspection.ts). */
export interface DatasetRecord {
  id: number;
  owner_id: number;
  /** The stored name (random, `.csv`): DATA_DIR/datasets/{owner_id}/{filename}. */
  filename: string;
  /** The name the file had on the user's machine (shown, never used as a path). */
  original_name: string;
  size_bytes: number;
  sha256: string;
  /** Data rows, the header not counted. */
  row_count: number;
  columns: string[];
  created_at: string;
}

const COLUMNS = 'id, owner_id, filename, original_name, size_bytes, sha256, row_count, columns, created_at';

type Row = Omit<DatasetRecord, 'created_at'> & { created_at: Date | string };

const toRecord = (row: Row): DatasetRecord => ({
  id: Number(row.id),
  owner_id: Number(row.owner_id),
  filename: row.filename,
  original_name: row.original_name,
  size_bytes: Number(row.size_bytes),
  sha256: row.sha256,
  row_count: Number(row.row_count),
  columns: row.columns,
  created_at: new Date(row.created_at).toISOString(),
});

/** The SQL of `datasets` (migration 0009). */
export class DatasetsRepository {
  constructor(private readonly db: Queryable) {}

  async create(tx: Queryable, input: Omit<DatasetRecord, 'id' | 'created_at'>): Promise<DatasetRecord> {
    const { rows } = await tx.query<Row>(
      `insert into datasets (owner_id, filename, original_name, size_bytes, sha256, row_count, columns)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb) returning ${COLUMNS}`,
      [
        input.owner_id,
        input.filename,
        input.original_name,
        input.size_bytes,
        input.sha256,
        input.row_count,
        JSON.stringify(input.columns),
      ],
    );
    return toRecord(rows[0]!);
  }

  async findByFilename(filename: string): Promise<DatasetRecord | null> {
    const { rows } = await this.db.query<Row>(`select ${COLUMNS} from datasets where filename = $1`, [
      filename,
    ]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listByOwner(ownerId: number): Promise<DatasetRecord[]> {
    const { rows } = await this.db.query<Row>(
      `select ${COLUMNS} from datasets where owner_id = $1 order by id desc`,
      [ownerId],
    );
    return rows.map(toRecord);
  }

  /** Bytes the owner's datasets take. Inside a transaction, locks the owner so two uploads count in turn. */
  async usedBytes(tx: Queryable, ownerId: number, lock = false): Promise<number> {
    if (lock) await tx.query('select id from users where id = $1 for update', [ownerId]);
    const { rows } = await tx.query<{ used: number | string }>(
      'select coalesce(sum(size_bytes), 0) as used from datasets where owner_id = $1',
      [ownerId],
    );
    return Number(rows[0]?.used ?? 0);
  }

  /** Deletes the owner's dataset row; returns it (null when there is none of theirs). */
  async delete(ownerId: number, filename: string): Promise<DatasetRecord | null> {
    const { rows } = await this.db.query<Row>(
      `delete from datasets where owner_id = $1 and filename = $2 returning ${COLUMNS}`,
      [ownerId, filename],
    );
    return rows[0] ? toRecord(rows[0]) : null;
  }
}
