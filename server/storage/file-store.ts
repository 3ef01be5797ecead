// Files that more than one process reads (uploaded datasets, fetched URL copies, trained models,
// prediction images) sit behind one interface. A file is named by its key, its path under DATA_DIR
// ('datasets/7/<name>.csv', 'url-cache/<sha256>.csv', 'outputs/42/model.json'), and is always written
// to DATA_DIR first, then published. The local store is DATA_DIR itself (the embedded default: one
// machine). The S3 store (s3-file-store.ts) keeps the same keys in a bucket; DATA_DIR is then this
// machine's copy of what it wrote or fetched, so servers and workers on other machines read the same files.

import { rm } from 'node:fs/promises';
import path from 'node:path';

export interface FileStore {
  readonly backend: 'local' | 's3';
  /** This machine's path of a key (DATA_DIR/key); the file may not be here yet (see fetch). */
  pathOf(key: string): string;
  /** Publishes the file written at pathOf(key), so every machine can fetch it. */
  put(key: string): Promise<void>;
  /**
   * The local path of the key's bytes, copied from the store first when this machine lacks them
   * (checked against `sha256` when given). Throws FileMissing when the store has no such file.
   */
  fetch(key: string, sha256?: string): Promise<string>;
  /** Removes the file here and in the store (nothing when absent). */
  remove(key: string): Promise<void>;
  /** Removes every file whose key starts with `prefix/` (an output's or application's folder). */
  removeFolder(prefix: string): Promise<void>;
  /** Ends the store's connections (process shutdown). */
  close(): void;
}

/**
 * The shared store did not answer or refused the request (down, unreachable, wrong credentials): the
 * API answers 503 with this sentence (platform/error-handler.ts), never a 500; the log has the cause.
 */
export class FileStoreUnavailable extends Error {
  override name = 'FileStoreUnavailable';
  readonly statusCode = 503;
  constructor(cause: unknown) {
    super(
      'The server cannot reach its file store (S3), which holds the datasets and models, so this request cannot be handled right now. Please try again in a minute.',
      { cause },
    );
  }
}

/** The store has no file under the key (never published, or deleted). */
export class FileMissing extends Error {
  override name = 'FileMissing';
  constructor(readonly key: string) {
    super(`The file ${key} is not in the file store`);
  }
}

/**
 * A key as the stores accept it: a relative path of plain segments joined by '/', never '..' or
 * absolute, so a key can name nothing outside DATA_DIR (or the bucket's own layout).
 */
export function checkKey(key: string): string {
  const segments = key.split('/');
  const plain = segments.every((s) => s !== '' && s !== '.' && s !== '..' && !s.includes('\\'));
  if (!plain || key.length > 1024) throw new Error(`Not a file store key: ${JSON.stringify(key)}`);
  return key;
}

/** DATA_DIR alone: files are where they were written, and every reader is on this machine. */
export class LocalFileStore implements FileStore {
  readonly backend = 'local' as const;
  constructor(private readonly dataDir: string) {}

  pathOf(key: string): string {
    return path.join(this.dataDir, ...checkKey(key).split('/'));
  }

  async put(key: string): Promise<void> {
    checkKey(key);
  }

  async fetch(key: string): Promise<string> {
    return this.pathOf(key);
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async removeFolder(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  close(): void {}
}
