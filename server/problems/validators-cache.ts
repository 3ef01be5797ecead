// Writing the browser's validators costs seconds of CPU at every start (ajv compiles and prints every
// problem's schemas). The result depends only on the schema files and on the code that writes it (the
// engine and ajv), so it is kept on disk under a key made of both: a restart with the same files and
// the same code reads it back; any change to either writes it anew. A cache that cannot be read or
// written is passed over (the module is then written as before).

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

import { REPO_ROOT } from '../../src/engine/node/load-schemas';

const ENGINE_DIR = path.join(REPO_ROOT, 'src/engine');
export const VALIDATORS_CACHE_DIR = path.join(REPO_ROOT, 'node_modules/.cache/qmlstudio-validators');

/** The engine's own sources (tests aside) and ajv's version: what the generated code depends on. */
function codeIdentity(): Buffer[] {
  const parts: Buffer[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '__snapshots__') walk(full);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        parts.push(Buffer.from(path.relative(ENGINE_DIR, full)), readFileSync(full));
      }
    }
  };
  walk(ENGINE_DIR);
  parts.push(readFileSync(path.join(REPO_ROOT, 'node_modules/ajv/package.json')));
  return parts;
}

/** The module for these schema files: read from the cache when the files and the code are the same. */
export function cachedValidators(
  schemaFiles: Buffer,
  write: () => string,
  dir: string = VALIDATORS_CACHE_DIR,
): string {
  let file: string | null = null;
  try {
    const key = createHash('sha256');
    key.update(schemaFiles);
    for (const part of codeIdentity()) key.update(part);
    file = path.join(dir, `${key.digest('hex').slice(0, 32)}.js`);
    return readFileSync(file, 'utf8');
  } catch {
    // not cached yet, or the cache cannot be read: write it
  }
  const module = write();
  if (file) {
    try {
      mkdirSync(dir, { recursive: true });
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, module);
      renameSync(partial, file); // whole or not at all, for another server starting beside this one
    } catch {
      // a read-only checkout still serves the module it wrote
    }
  }
  return module;
}
