import { PGlite } from '@electric-sql/pglite';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dumpMemoryDatabase, openMemoryDatabase, type Database } from '../db/database';
import { migrate } from '../db/migrate';

// A new PGlite runs initdb inside WASM: about 20 s on a loaded 2-core machine, against about 2 s to start from
// a dumped data directory. The server project's global setup (pglite-global-setup.ts) migrates one database,
// dumps it to a file and provides the path; every in-memory test database starts from that file.

/** Migrates a new in-memory PGlite and writes its dumped data directory to a new temporary file. */
export async function writePgliteTemplate(): Promise<{ file: string; remove(): void }> {
  const db = await openMemoryDatabase();
  try {
    await migrate(db);
    const dump = await dumpMemoryDatabase(db);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'qml-pglite-template-'));
    const file = path.join(dir, 'migrated.tar');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await db.close();
  }
}

const templates = new Map<string, Blob>();

function templateBlob(templateFile: string): Blob {
  const template = templates.get(templateFile) ?? new Blob([readFileSync(templateFile)]);
  templates.set(templateFile, template);
  return template;
}

/**
 * A new in-memory PGlite with every migration applied: started from `templateFile` (writePgliteTemplate's)
 * when given, else a new cluster. migrate() runs either way, so a template older than the migrations only
 * costs time.
 */
export async function openMigratedMemoryDatabase(templateFile?: string): Promise<Database> {
  const db = await openMemoryDatabase(templateFile ? templateBlob(templateFile) : undefined);
  await migrate(db);
  return db;
}

/**
 * Writes `templateFile`'s migrated data directory to `dir` (a new directory), where the server's embedded
 * database (openDatabase: DATA_DIR/pglite) opens it as an already-migrated database: a real server start
 * without initdb in WASM (tens of seconds on a loaded machine).
 */
export async function writeMigratedDataDir(dir: string, templateFile: string): Promise<void> {
  const db = await PGlite.create(dir, { loadDataDir: templateBlob(templateFile) });
  await db.close();
}
