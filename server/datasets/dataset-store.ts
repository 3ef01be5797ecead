// Uploaded datasets: the file store's datasets/{ownerId}/{filename}, one `datasets` row each. An
// upload streams into a temporary file while it is inspected (csv-inspection.ts; a brain tumor .mat or
// .zip: mat-upload.ts, then the worker reads it); only a file that passes every check and fits the
// owner's quota is renamed into place, published to the file store and recorded, so a refusal leaves
// nothing half-written.

import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db/database';
import type { FileStore } from '../storage/file-store';
import { InspectingStream } from './csv-inspection';
import { DatasetRefusal, formatMegabytes } from './dataset-refusal';
import type { DatasetRecord, DatasetsRepository } from './datasets-repository';
import { MatCheckStream, MAT_UPLOAD_MAX_BYTES, type MatUploadFacts } from './mat-upload';
import { removeStalePartials } from './partial-files';

/** A stored dataset's name: random (not guessable, never the user's name for it) and `.csv`, `.mat` or `.zip`. */
export const DATASET_NAME_PATTERN = '^[a-f0-9]{32}\\.(csv|mat|zip)$';
const DATASET_NAME = new RegExp(DATASET_NAME_PATTERN);

export const isDatasetName = (name: string): boolean => DATASET_NAME.test(name);

export const quotaMessage = (used: number, quota: number): string =>
  `Your dataset storage is full (${formatMegabytes(used)} of ${formatMegabytes(quota)} used). ` +
  'Delete a dataset or ask an admin.';

export interface DatasetLimits {
  /** UPLOAD_MAX_BYTES */
  maxBytes: number;
  /** DATASET_QUOTA_BYTES: all of one owner's uploads together. */
  quotaBytes: number;
}

/** What a .mat upload's reading found, for its row: slices (rows) and the fields it holds (columns). */
export interface MatContents {
  rows: number;
  columns: string[];
}

/** A stored upload and what its inspection dropped (told to the uploader once, not stored). */
export interface SavedDataset {
  record: DatasetRecord;
  /** Data rows dropped because their field count differs from the header's. */
  droppedRows: number;
}

/** A stored dataset's key in the file store (its path under DATA_DIR). */
export const datasetKey = (record: Pick<DatasetRecord, 'owner_id' | 'filename'>): string =>
  `datasets/${record.owner_id}/${record.filename}`;

export class DatasetStore {
  constructor(
    private readonly db: Database,
    readonly repository: DatasetsRepository,
    private readonly files: FileStore,
    readonly limits: DatasetLimits,
  ) {}

  /** This machine's path of a stored dataset (it may have to be fetched first: localPath). */
  pathOf(record: Pick<DatasetRecord, 'owner_id' | 'filename'>): string {
    return this.files.pathOf(datasetKey(record));
  }

  /** A stored dataset as a file on this machine, fetched from the file store when it was uploaded elsewhere. */
  localPath(record: Pick<DatasetRecord, 'owner_id' | 'filename' | 'sha256'>): Promise<string> {
    return this.files.fetch(datasetKey(record), record.sha256);
  }

  /** The owner's dataset with this stored name, or null (none, or someone else's). */
  async findOwned(ownerId: number, filename: string): Promise<DatasetRecord | null> {
    if (!isDatasetName(filename)) return null;
    const record = await this.repository.findByFilename(filename);
    return record && record.owner_id === ownerId ? record : null;
  }

  /** Any user's dataset with this stored name (admins read every dataset). */
  async find(filename: string): Promise<DatasetRecord | null> {
    return isDatasetName(filename) ? this.repository.findByFilename(filename) : null;
  }

  /** Bytes of the owner's stored datasets. */
  usedBytes(ownerId: number): Promise<number> {
    return this.repository.usedBytes(this.db, ownerId);
  }

  /**
   * Refuses at once when the owner's storage is already full (before any byte is read); the exact
   * check with the file's size is in save().
   */
  async checkRoom(ownerId: number): Promise<void> {
    const used = await this.usedBytes(ownerId);
    if (used >= this.limits.quotaBytes) {
      throw new DatasetRefusal(quotaMessage(used, this.limits.quotaBytes), 413);
    }
  }

  /**
   * Streams an upload to disk while checking it; throws DatasetRefusal (nothing kept) when it is
   * not a CSV with a header row, is larger than the limit, or does not fit the owner's quota.
   */
  async save(ownerId: number, originalName: string, source: Readable): Promise<SavedDataset> {
    const inspect = new InspectingStream(this.limits.maxBytes);
    const { record, facts } = await this.store(ownerId, originalName, 'csv', source, inspect, async () => {
      const found = inspect.facts();
      return { ...found, facts: found };
    });
    return { record, droppedRows: facts.droppedRows };
  }

  /**
   * The same for a brain tumor dataset (.mat, or a .zip of .mat files): refused unless its first bytes
   * are a MATLAB or zip header and it is at most MAT_UPLOAD_MAX_BYTES; then `read` (the worker's
   * inspection of the file, under its temporary name) must succeed before it is kept.
   */
  async saveMat<T extends MatContents>(
    ownerId: number,
    originalName: string,
    source: Readable,
    read: (file: { path: string; sha256: string }, facts: MatUploadFacts) => Promise<T>,
  ): Promise<{ record: DatasetRecord; contents: T }> {
    const check = new MatCheckStream(Math.min(MAT_UPLOAD_MAX_BYTES, this.limits.quotaBytes));
    const extension = /\.zip$/i.test(originalName.trim()) ? 'zip' : 'mat';
    const { record, facts } = await this.store(
      ownerId,
      originalName,
      extension,
      source,
      check,
      async (partial) => {
        const found = check.facts();
        const contents = await read({ path: partial, sha256: found.sha256 }, found);
        return { ...found, rows: contents.rows, columns: contents.columns, facts: contents };
      },
    );
    return { record, contents: facts };
  }

  /** Streams `source` through `check` into a temporary file, then records it within the quota. */
  private async store<F>(
    ownerId: number,
    originalName: string,
    extension: 'csv' | 'mat' | 'zip',
    source: Readable,
    check: Transform,
    describe: (
      partial: string,
    ) => Promise<{ sizeBytes: number; sha256: string; rows: number; columns: string[]; facts: F }>,
  ): Promise<{ record: DatasetRecord; facts: F }> {
    const filename = `${randomBytes(16).toString('hex')}.${extension}`;
    const key = datasetKey({ owner_id: ownerId, filename });
    const final = this.files.pathOf(key);
    const dir = path.dirname(final);
    await mkdir(dir, { recursive: true });
    await removeStalePartials(dir);
    const partial = path.join(dir, `.${filename}.part`);
    let published = false;
    const sink = createWriteStream(partial, { flags: 'wx', mode: 0o640 });
    try {
      await pipeline(source, check, sink);
      const facts = await describe(partial);
      return await this.db.transaction(async (tx) => {
        const used = await this.repository.usedBytes(tx, ownerId, true);
        if (used + facts.sizeBytes > this.limits.quotaBytes) {
          throw new DatasetRefusal(quotaMessage(used, this.limits.quotaBytes), 413);
        }
        // The file first, published: a row never names a file that is not there (the transaction's
        // failure after this point removes the file below).
        await rename(partial, final);
        published = true;
        await this.files.put(key);
        const record = await this.repository.create(tx, {
          owner_id: ownerId,
          filename,
          original_name: cleanName(originalName, `dataset.${extension}`),
          size_bytes: facts.sizeBytes,
          sha256: facts.sha256,
          row_count: facts.rows,
          columns: facts.columns,
        });
        return { record, facts: facts.facts };
      });
    } catch (error) {
      // A refusal mid-stream can come before the file is even open: removing it before the stream has
      // closed would miss the file its pending open then creates.
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await rm(partial, { force: true });
      await rm(final, { force: true });
      // A refused row must not leave its object in the store either (best effort: the error is what matters).
      if (published) await this.files.remove(key).catch(() => undefined);
      throw error;
    }
  }

  /** Deletes the owner's dataset (row and file); false when there is none of theirs by that name. */
  async remove(ownerId: number, filename: string): Promise<boolean> {
    if (!isDatasetName(filename)) return false;
    const record = await this.repository.delete(ownerId, filename);
    if (!record) return false;
    await this.files.remove(datasetKey(record));
    return true;
  }
}

/** The user's file name as shown: its last path part, without control characters, at most 200 long. */
function cleanName(name: string, fallback: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return (base || fallback).slice(0, 200);
}
