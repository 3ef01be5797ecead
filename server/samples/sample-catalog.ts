// The shipped sample datasets (samples/ at the repository root, described by samples/manifest.json).
// Each file's sha256 is checked when the catalog loads, so a server never offers a file that is not
// the one the manifest describes.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

import { DEFAULT_SAMPLES_DIR, loadSampleManifest } from '../../src/engine/node/load-sample-manifest';
import type { SampleManifestEntry } from '../../src/engine';

/** A manifest entry as the API lists it: without where the rows came from (package, generator). */
export type SampleInfo = Omit<SampleManifestEntry, 'package' | 'generator'>;

export class SampleCatalogError extends Error {
  override name = 'SampleCatalogError';
}

export class SampleCatalog {
  private readonly byFile: Map<string, SampleInfo>;

  private constructor(
    private readonly dir: string,
    samples: SampleInfo[],
  ) {
    this.byFile = new Map(samples.map((s) => [s.file, s]));
  }

  /** Reads the manifest in `dir` (default: the repository's samples/) and checks every file's sha256. */
  static async load(dir: string = DEFAULT_SAMPLES_DIR): Promise<SampleCatalog> {
    const manifest = loadSampleManifest(dir);
    const bytes = await Promise.all(manifest.samples.map((s) => readFile(path.join(dir, s.file))));
    return SampleCatalog.fromManifest(dir, manifest.samples, bytes);
  }

  /** The same as load, synchronously (for wiring the services at start). */
  static loadSync(dir: string = DEFAULT_SAMPLES_DIR): SampleCatalog {
    const manifest = loadSampleManifest(dir);
    const bytes = manifest.samples.map((s) => readFileSync(path.join(dir, s.file)));
    return SampleCatalog.fromManifest(dir, manifest.samples, bytes);
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

  list(): SampleInfo[] {
    return [...this.byFile.values()];
  }

  /** The sample with this file name (e.g. "apple_google_stock.csv"), if shipped. */
  find(file: string): SampleInfo | undefined {
    return this.byFile.get(file);
  }

  /** The file's absolute path; only for a file the catalog holds (find first). */
  pathOf(file: string): string {
    if (!this.byFile.has(file)) throw new SampleCatalogError(`no sample file ${file}`);
    return path.join(this.dir, file);
  }
}
