import { PGlite } from '@electric-sql/pglite';
import path from 'node:path';
import pg from 'pg';
import { mergeWrites, TableVersions, writtenTables } from './table-versions';

/** The one database interface the repositories use; PGlite and PostgreSQL speak the same dialect. */
export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** The tables' write counters: bumped after every committed write through this object. */
  readonly versions: TableVersions;
  /** Runs fn inside one transaction: everything or nothing is written. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a multi-statement SQL script (migrations). */
  exec(sql: string): Promise<void>;
  /** A cheap round trip for the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly versions = new TableVersions();
  constructor(private readonly db: PGlite) {}

  async query<Row>(sql: string, params: unknown[] = []) {
    try {
      const result = await this.db.query<Row>(sql, params);
      return { rows: result.rows };
    } finally {
      await this.wrote(writtenTables(sql));
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    let written: string[] | 'all' | null = null;
    try {
      return await this.db.transaction((tx) =>
        fn({
          query: async <Row>(sql: string, params: unknown[] = []) => {
            written = mergeWrites(written, writtenTables(sql));
            return { rows: (await tx.query<Row>(sql, params)).rows };
          },
        }),
      );
    } finally {
      await this.wrote(written);
    }
  }

  async exec(sql: string) {
    try {
      await this.db.exec(sql);
    } finally {
      await this.wrote('all');
    }
  }

  private async wrote(tables: string[] | 'all' | null) {
    if (tables) await this.versions.wrote(tables);
  }

  async ping() {
    await this.db.query('select 1');
  }

  async close() {
    await this.db.close();
  }

  dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly versions = new TableVersions();
  constructor(private readonly pool: pg.Pool) {
    // An idle pooled connection the server ends (a PostgreSQL restart, a terminated backend, a database
    // dropped as the pool closes) is reported on the pool; without a listener that event is thrown and
    // ends the process. The pool has already dropped the connection and the next query opens another.
    pool.on('error', (error) => {
      process.emitWarning(`PostgreSQL closed an idle connection: ${error.message}`, 'DatabaseWarning');
    });
  }

  async query<Row>(sql: string, params: unknown[] = []) {
    try {
      const result = await this.pool.query(sql, params);
      return { rows: result.rows as Row[] };
    } finally {
      await this.wrote(writtenTables(sql));
    }
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let written: string[] | 'all' | null = null;
    try {
      await client.query('begin');
      const result = await fn({
        query: async <Row>(sql: string, params: unknown[] = []) => {
          written = mergeWrites(written, writtenTables(sql));
          return { rows: (await client.query(sql, params)).rows as Row[] };
        },
      });
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
      await this.wrote(written);
    }
  }

  async exec(sql: string) {
    try {
      await this.pool.query(sql);
    } finally {
      await this.wrote('all');
    }
  }

  private async wrote(tables: string[] | 'all' | null) {
    if (tables) await this.versions.wrote(tables);
  }

  async ping() {
    await this.pool.query('select 1');
  }

  async close() {
    await this.pool.end();
  }
}

// bigint columns (ids, counts) come back as numbers: ids stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/** PostgreSQL when a URL is given, else the embedded PGlite database under dataDir/pglite. */
export async function openDatabase(options: {
  databaseUrl: string | null;
  dataDir: string;
}): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    return new PostgresDatabase(pool);
  }
  const db = await PGlite.create(path.join(options.dataDir, 'pglite'));
  return new PgliteDatabase(db);
}

/**
 * An in-memory PGlite database, for tests. `from`: a dumped data directory (PGlite's dumpDataDir, e.g. an
 * already-migrated template) to start from instead of a new cluster; initdb in WASM is most of PGlite's
 * start-up time.
 */
export async function openMemoryDatabase(from?: Blob): Promise<Database> {
  return new PgliteDatabase(await PGlite.create(from ? { loadDataDir: from } : {}));
}

/** A dump of an open in-memory PGlite's data directory (uncompressed), which openMemoryDatabase can start from. */
export async function dumpMemoryDatabase(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase)) throw new Error('only a PGlite database can be dumped');
  return db.dump();
}
