import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `npm run demo:export` writes the landing page's demo data (committed with the repository). */
export const PUBLISHED_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'published');

/** The index the export writes last: its presence means the demo data has been generated. */
export const INDEX_FILE = 'index.json';

/** The demo data kinds and their files under <dir>/<problem id>/ (spec section 7's cached GETs). */
export const demoFile = {
  records: (problemId: string) => path.join(problemId, 'records.json'),
  compare: (problemId: string) => path.join(problemId, 'compare.json'),
  detail: (problemId: string, outputId: number) =>
    path.join(problemId, 'outputs', String(outputId), 'detail.json'),
  record: (problemId: string, outputId: number) =>
    path.join(problemId, 'outputs', String(outputId), 'record.json'),
};

export interface DemoFile {
  /** The file's bytes, sent as they are (the export writes each file as the reply's envelope). */
  body: Buffer;
  /** Strong validator: a hash of the content, so the same bytes always carry the same tag. */
  etag: string;
  /** The file's modification time, whole seconds (HTTP dates have no fractions). */
  lastModified: Date;
}

/**
 * Reads the published demo data files. Callers pass relative paths built by `demoFile` from
 * validated ids (problem ids are [a-z0-9-], output ids integers), so nothing leaves the directory.
 */
export class DemoDataStore {
  constructor(readonly dir: string = PUBLISHED_DIR) {}

  /** Whether the export has run (it writes the index after every other file). */
  generated(): boolean {
    return existsSync(path.join(this.dir, INDEX_FILE));
  }

  async read(relative: string): Promise<DemoFile | null> {
    const file = path.resolve(this.dir, relative);
    if (!file.startsWith(path.resolve(this.dir) + path.sep)) return null;
    try {
      const [body, info] = await Promise.all([readFile(file), stat(file)]);
      const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
      const lastModified = new Date(Math.floor(info.mtimeMs / 1000) * 1000);
      return { body, etag, lastModified };
    } catch {
      return null;
    }
  }
}

/**
 * RFC 9110 section 13.1: If-None-Match (weak comparison, `*` matches) decides when present;
 * otherwise If-Modified-Since. True when the client's copy is current (answer 304).
 */
export function notModified(
  file: Pick<DemoFile, 'etag' | 'lastModified'>,
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
): boolean {
  const tags = headers['if-none-match'];
  if (tags !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return tags.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(file.etag));
  }
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && file.lastModified.getTime() <= time;
}
