// What a brain tumor .mat dataset holds, read by the worker's `mat-inspect` command (bio/mat_inspect.py):
// slice count, class counts, patients, image size, the first rows of the Image Data table and one slice
// (thumbnail with its mask, tumor border, run-length tumor mask). The server never parses MATLAB files
// itself; it only checks the first bytes (sniffMatFormat) before storing an upload.

import type { FastifyBaseLogger } from 'fastify';
import { callWorker, workerFailureReason } from '../jobs/worker-call';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';
import { DatasetRefusal } from './dataset-refusal';

/** The spec's words (workspace.md sections 5 and 8). */
export const MAT_MESSAGES = {
  notMat: 'Invalid file format. Please select a .mat file.',
  parse: (message: string) => `Error parsing file: ${message}`,
} as const;

export type MatFormat = 'mat-v7.3' | 'mat-v5' | 'zip';

/** The worker's answer; the fields the server reads are typed. */
export interface MatInspection {
  count: number;
  class_counts: Record<string, number>;
  patients: number;
  image_size: [number, number];
  format: MatFormat;
  image_data: Record<string, unknown>[];
  slice: Record<string, unknown> & { index: number };
  [key: string]: unknown;
}

/** A file to inspect: where it is and what its bytes are (the cache key). */
export interface MatFile {
  path: string;
  sha256: string;
}

const MATLAB_V73 = Buffer.from('MATLAB 7.3 MAT-file', 'latin1');
const MATLAB_V5 = Buffer.from('MATLAB 5.0 MAT-file', 'latin1');
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** Bytes sniffMatFormat needs. */
export const MAT_SNIFF_BYTES = MATLAB_V73.length;

/**
 * The kind of a .mat upload by its first bytes: MATLAB's 128-byte text header ('MATLAB 7.3 MAT-file'
 * for HDF5-based v7.3, 'MATLAB 5.0 MAT-file' for v5 and v7) or a zip's local file header; null otherwise.
 */
export function sniffMatFormat(head: Buffer): MatFormat | null {
  const starts = (magic: Buffer) =>
    head.length >= magic.length && head.subarray(0, magic.length).equals(magic);
  if (starts(MATLAB_V73)) return 'mat-v7.3';
  if (starts(MATLAB_V5)) return 'mat-v5';
  if (starts(ZIP)) return 'zip';
  return null;
}

const isInspection = (data: Record<string, unknown>): data is MatInspection =>
  Number.isInteger(data.count) &&
  typeof data.class_counts === 'object' &&
  data.class_counts !== null &&
  Array.isArray(data.image_size) &&
  Array.isArray(data.image_data) &&
  typeof data.slice === 'object' &&
  data.slice !== null;

/** Inspections kept in memory (a thumbnail is ~20 KB of base64): the Train tab's recent slices. */
const CACHE_ENTRIES = 64;
/** A 3064-slice v7.3 file on a loaded 2-core machine: reading labels and one slice takes seconds. */
const DEFAULT_TIMEOUT_SECONDS = 120;
/** Inspections running at once (each is a Python process); a slice picker clicked quickly waits its turn. */
const MAX_RUNNING = 2;

/**
 * Runs `mat-inspect` for a file and a slice, and keeps the answers per file contents (sha256), slice and
 * row count, so the Train tab's previews after an upload, and of the shipped sample, do not start Python
 * again. A file the worker cannot read is a DatasetRefusal 'Error parsing file: {message}'.
 */
export class MatInspector {
  private readonly running = new Set<WorkerHandle>();
  private readonly cache = new Map<string, Promise<MatInspection>>();
  private slotsInUse = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly deps: { launcher: WorkerLauncher; log?: FastifyBaseLogger },
    private readonly options: { timeoutSeconds?: number } = {},
  ) {}

  /** `index` is 0-based (the API's is 1-based); `rows` the Image Data rows wanted. */
  inspect(file: MatFile, index: number, rows: number): Promise<MatInspection> {
    const key = `${file.sha256}:${index}:${rows}`;
    const cached = this.cache.get(key);
    if (cached) {
      // Most recently used last: the first key is the one to drop.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const pending = this.callWorker(file.path, index, rows);
    this.cache.set(key, pending);
    // A failure is not kept: the same file is refused again by a new call (and a timeout may pass).
    pending.catch(() => this.cache.delete(key));
    while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return pending;
  }

  private async callWorker(path: string, index: number, rows: number): Promise<MatInspection> {
    // A finished call hands its slot to the next waiting one directly.
    if (this.slotsInUse < MAX_RUNNING) this.slotsInUse += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let call;
    try {
      call = await callWorker(this.deps.launcher, this.running, {
        command: 'mat-inspect',
        input: { path, index, rows },
        timeoutSeconds: this.options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
      });
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.slotsInUse -= 1;
    }
    if (call.exit.code === 0 && call.result && isInspection(call.result)) return call.result;
    if (call.timedOut) {
      throw new DatasetRefusal(
        MAT_MESSAGES.parse(`reading the file took longer than ${call.timeoutSeconds} s.`),
      );
    }
    // The worker's MatFormatError (code bad_dataset) is a message for the user; anything else is logged.
    if (!call.failure) this.deps.log?.warn({ exit: call.exit }, 'mat-inspect failed');
    throw new DatasetRefusal(MAT_MESSAGES.parse(workerFailureReason(call)));
  }

  /** Ends the inspections under way (server shutdown). */
  close(): void {
    for (const handle of this.running) handle.kill('SIGKILL');
  }
}
