// A real S3-compatible server for tests, started by the test itself (no container engine needed):
// moto's S3 server (the worker venv's moto[s3], a test requirement in worker/requirements.lock) over
// HTTP on 127.0.0.1. It speaks the S3 REST API the AWS SDKs use (SigV4 requests, multipart uploads),
// so the server's and the worker's file stores run against it exactly as against MinIO or AWS S3.

import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { WORKER_DIR } from '../jobs/worker-process';

export interface S3TestServer {
  endpoint: string;
  /** The settings a process needs to use `bucket` on this server (STORAGE_BACKEND=s3 and S3_*). */
  env(bucket: string): Record<string, string>;
  /** Creates a bucket (each test its own). */
  createBucket(bucket: string): Promise<void>;
  stop(): Promise<void>;
}

const ACCESS = { accessKeyId: 'qml-test-key', secretAccessKey: 'qml-test-secret' };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts moto's S3 server on a free port; resolves once it accepts connections. */
export async function startS3Server(
  python = path.join(WORKER_DIR, '.venv/bin/python'),
): Promise<S3TestServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const deadline = Date.now() + 30_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto's S3 server did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: ACCESS });
  return {
    endpoint,
    env: (bucket) => ({
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCESS.accessKeyId,
      S3_SECRET_ACCESS_KEY: ACCESS.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    }),
    async createBucket(bucket) {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    },
    async stop() {
      client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
