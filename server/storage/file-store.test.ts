import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { bearer, startStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';
import { startS3Server, type S3TestServer } from '../test-support/s3-server';
import { checkKey, FileMissing, LocalFileStore } from './file-store';
import { SINGLE_PUT_MAX_BYTES, S3FileStore } from './s3-file-store';
import { createFileStore, workerStorageEnvironment } from './storage-config';

// The server's file stores: S3FileStore against a real S3-compatible server (moto's, over HTTP), as
// two machines with their own DATA_DIR see one bucket; LocalFileStore as DATA_DIR itself.

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('the S3 file store on an S3-compatible server', () => {
  let s3: S3TestServer;
  let root: string;
  const bucket = `qml-files-${randomBytes(4).toString('hex')}`;
  const machine = (name: string) =>
    createFileStore(loadConfig({ DATA_DIR: path.join(root, name), ...s3.env(bucket) })) as S3FileStore;

  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket(bucket);
    root = mkdtempSync(path.join(tmpdir(), 'qml-file-store-'));
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('publishes a file on one machine and fetches it byte for byte on another, checked by sha256', async () => {
    const writer = machine('a');
    const reader = machine('b');
    const bytes = Buffer.from('Day,Sales\n1,2\n3,4\n');
    mkdirSync(path.dirname(writer.pathOf('datasets/7/x.csv')), { recursive: true });
    writeFileSync(writer.pathOf('datasets/7/x.csv'), bytes);
    await writer.put('datasets/7/x.csv');

    expect(existsSync(reader.pathOf('datasets/7/x.csv'))).toBe(false);
    const fetched = await reader.fetch('datasets/7/x.csv', sha(bytes));
    expect(fetched).toBe(path.join(root, 'b', 'datasets', '7', 'x.csv'));
    expect(readFileSync(fetched)).toEqual(bytes);

    // A copy whose bytes are not the expected ones is refused and never left in place.
    const other = machine('c');
    await expect(other.fetch('datasets/7/x.csv', '0'.repeat(64))).rejects.toThrow(/has sha256 .*, not 0{64}/);
    expect(existsSync(other.pathOf('datasets/7/x.csv'))).toBe(false);
    expect(readdirSync(path.dirname(other.pathOf('datasets/7/x.csv')))).toEqual([]);

    await expect(reader.fetch('datasets/7/none.csv')).rejects.toBeInstanceOf(FileMissing);
  });

  it('sends a file over 16 MiB as a multipart upload and fetches it whole', async () => {
    const writer = machine('big-a');
    const bytes = randomBytes(SINGLE_PUT_MAX_BYTES + 3 * 1024 * 1024);
    mkdirSync(path.dirname(writer.pathOf('outputs/9/model.pt')), { recursive: true });
    writeFileSync(writer.pathOf('outputs/9/model.pt'), bytes);
    await writer.put('outputs/9/model.pt');
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    });
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: 'outputs/9/model.pt' }));
    client.destroy();
    expect(head.ContentLength).toBe(bytes.length);
    expect(head.ETag).toMatch(/-3"$/); // 8 + 8 + 3 MiB parts
    const copy = await machine('big-b').fetch('outputs/9/model.pt', sha(bytes));
    expect(sha(readFileSync(copy))).toBe(sha(bytes));
  });

  it('removes a file and a folder here and in the bucket', async () => {
    const a = machine('rm-a');
    for (const key of ['outputs/5/model.json', 'outputs/5/sub/w.pt', 'outputs/50/keep.json']) {
      mkdirSync(path.dirname(a.pathOf(key)), { recursive: true });
      writeFileSync(a.pathOf(key), key);
      await a.put(key);
    }
    await a.removeFolder('outputs/5');
    expect(existsSync(a.pathOf('outputs/5'))).toBe(false);
    const b = machine('rm-b');
    await expect(b.fetch('outputs/5/model.json')).rejects.toBeInstanceOf(FileMissing);
    await expect(b.fetch('outputs/5/sub/w.pt')).rejects.toBeInstanceOf(FileMissing);
    // 'outputs/5' is a folder name, not a prefix of 'outputs/50'.
    expect(readFileSync(await b.fetch('outputs/50/keep.json'), 'utf8')).toBe('outputs/50/keep.json');
    await a.remove('outputs/50/keep.json');
    await expect(machine('rm-c').fetch('outputs/50/keep.json')).rejects.toBeInstanceOf(FileMissing);
  });
});

describe('a file store that does not answer', () => {
  it('answers 503 with a sentence (never a 500) and keeps nothing of the upload', async () => {
    // Nothing listens on port 9 of this machine: every request to the store is refused.
    const stack = await startStack(
      { database: 'pglite', queue: 'in-process' },
      {
        STORAGE_BACKEND: 's3',
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_BUCKET: 'qml-away',
        S3_ACCESS_KEY_ID: 'k',
        S3_SECRET_ACCESS_KEY: 's',
      },
    );
    try {
      const token = await stack.userToken('away@example.com');
      const body = fileUploadBody('Day,Sales\n1,2\n2,3\n');
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/away/${encodeURIComponent('away@example.com')}`,
        headers: { ...bearer(token), ...body.headers },
        payload: body.payload,
      });
      expect(reply.statusCode, reply.body).toBe(503);
      expect(reply.headers['retry-after']).toBe('60');
      expect((reply.json() as { detail: string }).detail).toMatch(/cannot reach its file store \(S3\)/);
      const listed = await stack.app.inject({ url: '/api/datasets', headers: bearer(token) });
      expect(JSON.stringify(listed.json())).not.toContain('.csv');
    } finally {
      await stack.close();
    }
  });
});

describe('keys, the local store and the settings', () => {
  it('takes only keys inside DATA_DIR', () => {
    for (const bad of ['../etc/passwd', '/abs', 'a//b', 'a/./b', 'a\\b', '']) {
      expect(() => checkKey(bad), bad).toThrow(/Not a file store key/);
    }
  });

  it('is DATA_DIR itself by default: nothing to publish, files where they were written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qml-local-store-'));
    const store = createFileStore(loadConfig({ DATA_DIR: dir }));
    expect(store).toBeInstanceOf(LocalFileStore);
    mkdirSync(path.join(dir, 'outputs', '3'), { recursive: true });
    writeFileSync(path.join(dir, 'outputs', '3', 'm.json'), '{}');
    await store.put('outputs/3/m.json');
    expect(await store.fetch('outputs/3/m.json')).toBe(path.join(dir, 'outputs', '3', 'm.json'));
    await store.removeFolder('outputs/3');
    expect(existsSync(path.join(dir, 'outputs', '3'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the workers the store's settings, credentials only when set", () => {
    const local = workerStorageEnvironment(loadConfig({ DATA_DIR: '/srv/qml' }));
    expect(local).toEqual({ DATA_DIR: '/srv/qml', STORAGE_BACKEND: 'local' });
    const s3 = workerStorageEnvironment(
      loadConfig({
        DATA_DIR: '/srv/qml',
        STORAGE_BACKEND: 's3',
        S3_BUCKET: 'qml-files',
        S3_ENDPOINT: 'http://minio:9000',
        S3_ACCESS_KEY_ID: 'id',
        S3_SECRET_ACCESS_KEY: 'secret',
      }),
    );
    expect(s3).toEqual({
      DATA_DIR: '/srv/qml',
      STORAGE_BACKEND: 's3',
      S3_BUCKET: 'qml-files',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
  });
});
