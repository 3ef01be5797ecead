// The file store on S3-compatible object storage (AWS S3, MinIO, Ceph, Garage...): each key is an
// object of the bucket, and DATA_DIR/key is this machine's copy. Files over 16 MiB go up in 8 MiB
// parts (multipart upload, aborted on failure); a fetch lands in a temporary file beside its place,
// checked against the expected sha256 before it is renamed in, so a half-fetched file is never read.

import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { checkKey, FileMissing, FileStoreUnavailable, type FileStore } from './file-store';

export interface S3Settings {
  bucket: string;
  /** An S3-compatible store's address; null: AWS S3 of the region. */
  endpoint: string | null;
  region: string;
  /** Bucket in the path (http://host/bucket/key), as MinIO and most S3-compatible stores need. */
  forcePathStyle: boolean;
  /** null: the AWS SDK's default chain (AWS_* variables, shared files, an instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** Larger files are sent as a multipart upload. */
export const SINGLE_PUT_MAX_BYTES = 16 * 1024 * 1024;
/** Part size of a multipart upload (S3's minimum is 5 MiB for all but the last part). */
export const PART_BYTES = 8 * 1024 * 1024;
/** DeleteObjects takes at most 1,000 keys a request. */
const DELETE_BATCH = 1000;

export class S3FileStore implements FileStore {
  readonly backend = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(
    private readonly dataDir: string,
    settings: S3Settings,
  ) {
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Checksums only where S3 requires them: several S3-compatible stores refuse the SDK's newer
      // default (CRC32 trailers on every upload); the bytes are checked by sha256 on fetch instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  pathOf(key: string): string {
    return path.join(this.dataDir, ...checkKey(key).split('/'));
  }

  /** One request to the store; a failure other than a missing object is FileStoreUnavailable. */
  private async guarded<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw isNotFound(error) ? error : new FileStoreUnavailable(error);
    }
  }

  async put(key: string): Promise<void> {
    const file = this.pathOf(key);
    const { size } = await stat(file);
    if (size <= SINGLE_PUT_MAX_BYTES) {
      const body = await readFile(file);
      await this.guarded(() =>
        this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body })),
      );
      return;
    }
    await this.putInParts(key, file, size);
  }

  async fetch(key: string, sha256?: string): Promise<string> {
    const target = this.pathOf(key);
    // Keys name immutable files (random names, content hashes, finished outputs): a copy here is current.
    if ((await stat(target).catch(() => null))?.isFile()) return target;
    let body: Readable;
    try {
      const reply = await this.guarded(() =>
        this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })),
      );
      body = reply.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) throw new FileMissing(key);
      throw error;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const partial = path.join(
      path.dirname(target),
      `.${path.basename(target)}.${randomBytes(6).toString('hex')}.part`,
    );
    const hash = new HashingStream();
    try {
      await pipeline(body, hash, createWriteStream(partial, { flags: 'wx', mode: 0o640 }));
      const digest = hash.digest();
      if (sha256 && digest !== sha256) {
        throw new Error(`The file ${key} in the file store has sha256 ${digest}, not ${sha256}`);
      }
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return target;
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
    await this.guarded(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  async removeFolder(prefix: string): Promise<void> {
    await rm(this.pathOf(prefix), { recursive: true, force: true });
    let token: string | undefined;
    do {
      const page = await this.guarded(() =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: `${prefix}/`, ContinuationToken: token }),
        ),
      );
      const keys = (page.Contents ?? []).flatMap((entry) => (entry.Key ? [{ Key: entry.Key }] : []));
      for (let start = 0; start < keys.length; start += DELETE_BATCH) {
        await this.guarded(() =>
          this.client.send(
            new DeleteObjectsCommand({
              Bucket: this.bucket,
              Delete: { Objects: keys.slice(start, start + DELETE_BATCH), Quiet: true },
            }),
          ),
        );
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Ends the client's connections (process shutdown). */
  close(): void {
    this.client.destroy();
  }

  private async putInParts(key: string, file: string, size: number): Promise<void> {
    const { UploadId } = await this.guarded(() =>
      this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key })),
    );
    const handle = await open(file, 'r');
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let offset = 0, number = 1; offset < size; offset += PART_BYTES, number += 1) {
        const length = Math.min(PART_BYTES, size - offset);
        const buffer = Buffer.alloc(length);
        await handle.read(buffer, 0, length, offset);
        const { ETag } = await this.guarded(() =>
          this.client.send(
            new UploadPartCommand({
              Bucket: this.bucket,
              Key: key,
              UploadId,
              PartNumber: number,
              Body: buffer,
            }),
          ),
        );
        parts.push({ ETag: ETag!, PartNumber: number });
      }
      await this.guarded(() =>
        this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
    } catch (error) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw error;
    } finally {
      await handle.close();
    }
  }
}

function isNotFound(error: unknown): boolean {
  const named = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return named.name === 'NoSuchKey' || named.name === 'NotFound' || named.$metadata?.httpStatusCode === 404;
}

/** Passes bytes through while hashing them (sha256). */
class HashingStream extends Transform {
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.hash.update(chunk);
    done(null, chunk);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}
