// The shipped sample datasets (samples/ at the repository root, described by samples/manifest.json):
// the CSV tables, the brain tumor .mat dataset (manifest `mat_samples`; rows = slices) and the example
// MRI images (`mri_examples`). Each file's sha256 is checked when the catalog loads, so a server never
// offers a file that is not the one the manifest describes. The .mat file is written by `make install`, or
// in the background by `make run` (too large to commit): while it is absent, or not the manifest's, it is not
// offered (a table must be), and it is offered from the first look after it has been written.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { DEFAULT_SAMPLES_DIR, loadSampleManifest } from '../../src/engine/node/load-sample-manifest';
import type { SampleManifestEntry } from '../../src/engine';

/** A manifest entry as the API lists it: without where the rows came from (package, generator). */
export type SampleInfo = Omit<SampleManifestEntry, 'package' | 'generator'>;

export class SampleCatalogError extends Error {
  override name = 'SampleCatalogError';
}

/** A shipped file that is not a table: the brain tumor .mat dataset or an example MRI image. */
interface ShippedFile {
  file: string;
  sha256: string;
  /** A dataset (rows = slices) a job or the Train tab may name; an image is only downloaded. */
  dataset?: SampleInfo;
}

export class SampleCatalog {
  private readonly byFile: Map<string, SampleInfo>;
  private readonly shipped: Map<string, ShippedFile>;
  /** Manifest .mat datasets not (yet) present and intact: looked at again when asked for. */
  private readonly pending: Map<string, ShippedFile>;

  private constructor(
    private readonly dir: string,
    samples: SampleInfo[],
    others: ShippedFile[] = [],
    pending: ShippedFile[] = [],
  ) {
    this.byFile = new Map(samples.map((s) => [s.file, s]));
    this.shipped = new Map(others.map((f) => [f.file, f]));
    this.pending = new Map(pending.map((f) => [f.file, f]));
  }

  /** Reads the manifest in `dir` (default: the repository's samples/) and checks every file's sha256. */
  static async load(dir: string = DEFAULT_SAMPLES_DIR): Promise<SampleCatalog> {
    const manifest = loadSampleManifest(dir);
    const bytes = await Promise.all(manifest.samples.map((s) => readFile(path.join(dir, s.file))));
    return SampleCatalog.fromManifest(dir, manifest.samples, bytes).withShippedFiles();
  }

  /** The same as load, synchronously (for wiring the services at start). */
  static loadSync(dir: string = DEFAULT_SAMPLES_DIR): SampleCatalog {
    const manifest = loadSampleManifest(dir);
    const bytes = manifest.samples.map((s) => readFileSync(path.join(dir, s.file)));
    return SampleCatalog.fromManifest(dir, manifest.samples, bytes).withShippedFiles();
  }

  /** This catalog plus the manifest's .mat datasets and MRI example images that are present and intact. */
  private withShippedFiles(): SampleCatalog {
    const raw = JSON.parse(readFileSync(path.join(this.dir, 'manifest.json'), 'utf8')) as {
      mat_samples?: unknown;
      mri_examples?: unknown;
    };
    const others: ShippedFile[] = [];
    const pending: ShippedFile[] = [];
    for (const entry of listOf(raw.mat_samples)) {
      const { file, label, slices, synthetic, source, licence, sha256 } = entry;
      if (typeof file !== 'string' || !/^[a-z0-9_]+\.mat$/.test(file) || typeof sha256 !== 'string') continue;
      if (!Number.isInteger(slices) || typeof label !== 'string') continue;
      const dataset: SampleInfo = {
        file,
        label,
        rows: slices as number,
        columns: [],
        synthetic: synthetic === true,
        source: String(source ?? ''),
        licence: String(licence ?? ''),
        sha256,
      };
      (intact(path.join(this.dir, file), sha256) ? others : pending).push({ file, sha256, dataset });
    }
    for (const entry of listOf(raw.mri_examples)) {
      const { file, sha256 } = entry;
      if (typeof file !== 'string' || !/^mri-examples\/[a-z0-9-]+\.png$/.test(file)) continue;
      if (typeof sha256 === 'string' && intact(path.join(this.dir, file), sha256)) others.push({ file, sha256 });
    }
    return new SampleCatalog(this.dir, this.list(), others, pending);
  }

  /** The shipped file, taking a pending .mat dataset in once it has been written whole (renamed into place). */
  private shippedFile(file: string): ShippedFile | undefined {
    const found = this.shipped.get(file);
    if (found) return found;
    const waiting = this.pending.get(file);
    if (!waiting || !intact(path.join(this.dir, file), waiting.sha256)) return undefined;
    this.pending.delete(file);
    this.shipped.set(file, waiting);
    return waiting;
  }

  private static fromManifest(dir: string, entries: SampleManifestEntry[], bytes: Buffer[]): SampleCatalog {
    const samples = entries.map((entry, i): SampleInfo => {
      const digest = createHash('sha256').update(bytes[i]!).digest('hex');
      if (digest !== entry.sha256) {
        throw new SampleCatalogError(
          `samples/${entry.file}: sha256 ${digest} does not match the manifest's ${entry.sha256}`,
        );
      }
      const { file, label, rows, columns, synthetic, source, licence, sha256 } = entry;
      return { file, label, rows, columns, synthetic, source, licence, sha256 };
    });
    return new SampleCatalog(dir, samples);
  }

  /** The sample tables (GET /samples): the CSV files. */
  list(): SampleInfo[] {
    return [...this.byFile.values()];
  }

  /**
   * The sample dataset with this file name (e.g. "apple_google_stock.csv", or the brain tumor
   * "brain_tumor_dataset.mat" whose rows are its slices), if shipped.
   */
  find(file: string): SampleInfo | undefined {
    return this.byFile.get(file) ?? this.shippedFile(file)?.dataset;
  }

  /** Whether the download route may serve this file: a sample dataset or an example MRI image. */
  serves(file: string): boolean {
    return this.byFile.has(file) || this.shippedFile(file) !== undefined;
  }

  /** The file's absolute path; only for a file the catalog holds (find or serves first). */
  pathOf(file: string): string {
    if (!this.serves(file)) throw new SampleCatalogError(`no sample file ${file}`);
    return path.join(this.dir, file);
  }
}

const listOf = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
    : [];

/** Digests of large files already checked by this process, by path, size and modification time. */
const checked = new Map<string, string>();

/** Whether the file exists and its sha256 is the manifest's (hashed once per process and version). */
function intact(file: string, sha256: string): boolean {
  if (!existsSync(file)) return false;
  const { size, mtimeMs } = statSync(file);
  const key = `${file}:${size}:${mtimeMs}`;
  let digest = checked.get(key);
  if (digest === undefined) {
    digest = createHash('sha256').update(readFileSync(file)).digest('hex');
    checked.set(key, digest);
  }
  return digest === sha256;
}
