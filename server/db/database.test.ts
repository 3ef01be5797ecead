import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_ADMIN_URL, MODES } from '../test-support/harness';
import { openDatabase } from './database';

// A pooled PostgreSQL connection ended by the server while idle (a restart, pg_terminate_backend, a
// database dropped as the pool closes) must not end the process: the pool drops it and goes on.
const postgres = MODES.find((m) => m.database === 'postgres' && m.queue === 'in-process')!;

if (postgres.available) {
  describe('PostgreSQL pool', () => {
    it('survives the server ending an idle connection, and the next query works', async () => {
      const db = await openDatabase({ databaseUrl: POSTGRES_ADMIN_URL, dataDir: '' });
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', onUncaught);
      try {
        const { rows } = await db.query<{ pid: number }>('select pg_backend_pid() as pid');
        const pid = rows[0]!.pid;
        const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await admin.connect();
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await admin.end();
        await new Promise((resolve) => setTimeout(resolve, 200)); // the FATAL reaches the idle client
        expect(uncaught).toEqual([]);
        const again = await db.query<{ one: number }>('select 1 as one');
        expect(again.rows[0]!.one).toBe(1);
      } finally {
        process.off('uncaughtException', onUncaught);
        await db.close();
      }
    });
  });
}
