// The engine's Node side: reads every .json file under a schemas directory into the plain objects
// the engine takes (keys relative to the directory, e.g. "problems/brain-tumor.json"). Used by the
// server (from SCHEMAS_DIR; the browser gets the same files from GET /api/schemas), codegen, the schema
// checker and tests. Only
// src/engine/node/ may import `node:*` (an import-zone lint rule), so the rest of the engine stays
// browser-safe.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createRegistry, type Registry, type SchemaSources } from '../index';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DEFAULT_SCHEMAS_DIR = path.join(REPO_ROOT, 'schemas');

export class SchemaFileParseError extends Error {
  constructor(
    readonly file: string,
    cause: Error,
  ) {
    super(`${file}: not valid JSON: ${cause.message}`);
    this.name = 'SchemaFileParseError';
  }
}

function walk(dir: string, base: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, base, out);
    else if (name.endsWith('.json')) out.push(path.relative(base, full).split(path.sep).join('/'));
  }
}

/** Reads and parses every JSON file below `dir`. Throws SchemaFileParseError on bad JSON. */
export function loadSchemaSources(dir: string = DEFAULT_SCHEMAS_DIR): SchemaSources {
  const files: string[] = [];
  walk(dir, dir, files);
  const sources: SchemaSources = {};
  for (const rel of files) {
    const text = readFileSync(path.join(dir, rel), 'utf8');
    try {
      sources[rel] = JSON.parse(text) as unknown;
    } catch (err) {
      throw new SchemaFileParseError(rel, err as Error);
    }
  }
  return sources;
}

/** The registry of a schemas directory (default: the repository's schemas/). */
export function loadRegistry(dir: string = DEFAULT_SCHEMAS_DIR): Registry {
  return createRegistry(loadSchemaSources(dir));
}
