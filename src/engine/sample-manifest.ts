// The shipped sample datasets (samples/manifest.json): one entry per file, with what the schemas'
// examples must agree with (row count and columns) and where the data came from. Browser-safe; the
// Node side reads the file (src/engine/node/load-sample-manifest.ts).

import { isPlainObject } from './json';

export interface SampleManifestEntry {
  /** File name under samples/, e.g. "apple_google_stock.csv". */
  file: string;
  /** The label users see (the synthetic file says so in it). */
  label: string;
  /** Data rows (the header line not counted); for a .mat file, its slices. */
  rows: number;
  /** The header's columns, in order. */
  columns: string[];
  /** True when the rows were generated, not observed. */
  synthetic: boolean;
  /** Where the rows came from (package and file, or the generator). */
  source: string;
  licence: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** The package the rows were extracted from (real data). */
  package?: { name: string; version: string; path: string };
  /** The committed script and seed that made the rows (synthetic data). */
  generator?: { script: string; seed: number };
}

export interface SampleManifest {
  samples: SampleManifestEntry[];
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Checks the manifest's shape; throws naming the first bad entry and field. */
export function parseSampleManifest(json: unknown): SampleManifest {
  if (!isPlainObject(json) || !Array.isArray(json.samples)) {
    throw new Error('samples/manifest.json: expected an object with a "samples" array');
  }
  const samples = json.samples.map((entry: unknown, i: number): SampleManifestEntry => {
    const at = `samples/manifest.json: /samples/${i}`;
    if (!isPlainObject(entry)) throw new Error(`${at}: expected an object`);
    for (const key of ['file', 'label', 'source', 'licence', 'sha256'] as const) {
      if (!isString(entry[key])) throw new Error(`${at}/${key}: expected a non-empty string`);
    }
    // A table (.csv: rows and header columns) or MRI slices (.mat: rows are the slices).
    if (!/^[a-z0-9_]+\.(csv|mat)$/.test(entry.file as string)) {
      throw new Error(`${at}/file: expected a lower-case .csv or .mat file name`);
    }
    if (!Number.isInteger(entry.rows) || (entry.rows as number) < 1) {
      throw new Error(`${at}/rows: expected a positive integer`);
    }
    if (!Array.isArray(entry.columns) || !entry.columns.every(isString)) {
      throw new Error(`${at}/columns: expected an array of column names`);
    }
    if (typeof entry.synthetic !== 'boolean') throw new Error(`${at}/synthetic: expected true or false`);
    return entry as unknown as SampleManifestEntry;
  });
  return { samples };
}
