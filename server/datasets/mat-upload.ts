// A brain tumor dataset upload (.mat, or a .zip of .mat files) as its bytes arrive: the first bytes
// must be a MATLAB header or a zip's, the size at most the limit; the bytes are hashed on the way to
// disk. What the file holds is read afterwards by the worker (mat-inspection.ts).

import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { DatasetRefusal, formatMegabytes } from './dataset-refusal';
import { MAT_MESSAGES, MAT_SNIFF_BYTES, sniffMatFormat, type MatFormat } from './mat-inspection';

/**
 * The largest .mat upload: Figshare's 3064 slices at 512x512 are ~880 MB as one set of files; 300 MB
 * holds ~1,000 full-size slices or the whole set at the sample's 128x128, and stays within a user's
 * default 1 GiB quota.
 */
export const MAT_UPLOAD_MAX_BYTES = 300 * 1024 * 1024;

/** The file names a brain tumor dataset upload has (the CSV path takes every other name). */
export const isMatUploadName = (name: string): boolean => /\.(mat|zip)$/i.test(name.trim());

export interface MatUploadFacts {
  format: MatFormat;
  sizeBytes: number;
  sha256: string;
}

/** Passes the bytes on while checking the header and the size; facts() once it has ended. */
export class MatCheckStream extends Transform {
  private readonly hash = createHash('sha256');
  private head = Buffer.alloc(0);
  private format: MatFormat | null = null;
  private size = 0;
  private sha256: string | null = null;

  constructor(private readonly maxBytes: number = MAT_UPLOAD_MAX_BYTES) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(
        new DatasetRefusal(`The file is larger than the limit of ${formatMegabytes(this.maxBytes)}.`, 413),
      );
      return;
    }
    if (this.format === null) {
      this.head = Buffer.concat([this.head, chunk]).subarray(0, MAT_SNIFF_BYTES);
      if (this.head.length >= MAT_SNIFF_BYTES) {
        this.format = sniffMatFormat(this.head);
        if (this.format === null) {
          done(new DatasetRefusal(MAT_MESSAGES.notMat));
          return;
        }
      }
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    // A file shorter than a MATLAB header is not one.
    if (this.format === null) this.format = sniffMatFormat(this.head);
    if (this.format === null) {
      done(new DatasetRefusal(MAT_MESSAGES.notMat));
      return;
    }
    this.sha256 = this.hash.digest('hex');
    done();
  }

  facts(): MatUploadFacts {
    if (this.sha256 === null || this.format === null) throw new Error('the stream has not ended');
    return { format: this.format, sizeBytes: this.size, sha256: this.sha256 };
  }
}
