import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { Redis } from 'ioredis';
import pino from 'pino';
import { inject, it } from 'vitest';
import { mapJobRequest, type AppData } from '../../src/engine';
import { buildApp } from '../app';
import { hashPassword } from '../auth/passwords';
import { UsersRepository } from '../auth/users-repository';
import { loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/database';
import { migrate } from '../db/migrate';
import { createServices, type Services } from '../services';
import { WarmWorkerPool } from '../jobs/warm-worker-pool';
import { openMigratedMemoryDatabase } from './pglite-template';

export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function answers(fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await fn();
    return true;
  } catch {
    return false;
  }
}

/** Whether PostgreSQL and Redis answer at these addresses (one quick attempt each). */
export async function probeServices(postgresUrl: string, redisUrl: string) {
  const postgres = await answers(async () => {
    const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
    await client.connect();
    await client.end();
  });
  const redis = await answers(async () => {
    // One attempt, no reconnecting: a probe that keeps retrying would keep the process alive.
    const connection = new Redis(redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
      retryStrategy: () => null,
    });
    connection.on('error', () => {}); // the refusal is the answer (connect() rejects); not worth a log line
    try {
      await connection.connect();
      await connection.ping();
    } finally {
      connection.disconnect();
    }
  });
  return { postgres, redis };
}

/**
 * The passes that cannot run. In CI (the CI variable set, as .ci/run does) a missing service fails every
 * server test file (thrown when the harness loads): a pass that cannot run must not pass quietly.
 * Locally each skip is announced loudly instead.
 */
export function requireServices(
  answered: { postgres: boolean; redis: boolean },
  urls: { postgres: string; redis: string },
  ci: boolean,
  warn: (message: string) => void = console.warn,
): void {
  const missing = [
    ...(answered.postgres ? [] : [`PostgreSQL at ${urls.postgres} does not answer: the PostgreSQL pass`]),
    ...(answered.redis ? [] : [`Redis at ${urls.redis} does not answer: the BullMQ pass`]),
  ];
  if (missing.length > 0 && ci) {
    throw new Error(`CI requires every server pass: ${missing.map((m) => `${m} cannot run`).join('; ')}`);
  }
  for (const reason of missing) warn(`\n!!!!! ${reason} is SKIPPED !!!!!\n`);
}

const answered = await probeServices(POSTGRES_ADMIN_URL, REDIS_URL);
export const postgresAvailable = answered.postgres;
export const redisAvailable = answered.redis;
requireServices(answered, { postgres: POSTGRES_ADMIN_URL, redis: REDIS_URL }, Boolean(process.env.CI));

/**
 * A new in-memory PGlite with every migration applied, started from the run's migrated template
 * (pglite-global-setup.ts) when the project provides one.
 */
export function migratedMemoryDatabase(): Promise<Database> {
  return openMigratedMemoryDatabase(providedTemplate());
}

/** The run's template file; none outside vitest, where inject throws (the benchmarks start stacks too). */
function providedTemplate(): string | undefined {
  try {
    return inject('pgliteTemplate') || undefined;
  } catch {
    return undefined;
  }
}

export type DatabaseMode = 'pglite' | 'postgres';
export type QueueMode = 'in-process' | 'bullmq';

/**
 * Which modes a server test runs in (each mode is a stack: a database, an app and its worker):
 * - MODES, all four: what depends on the database and the queue together: a job's lifecycle (queued,
 *   running, final, stopped, lost), queue behaviour, the events and results a run persists.
 * - EACH_ONCE, [pglite + in-process, postgres + bullmq]: each database and each queue once: persistence
 *   through the repositories, SQL, and the stores that move to Redis with it (rate limits, sessions).
 * - ONE_MODE, pglite + in-process: validation, permissions, messages and routes that only read and write
 *   through repositories proven in the passes above.
 * Every repository's behaviour keeps at least one PostgreSQL and one BullMQ pass somewhere. A test kept to
 * fewer modes is not registered in the others (`if`, never a skip: CI counts a skip as a failure).
 */
export const MODES: { database: DatabaseMode; queue: QueueMode; available: boolean }[] = [
  { database: 'pglite', queue: 'in-process', available: true },
  { database: 'pglite', queue: 'bullmq', available: redisAvailable },
  { database: 'postgres', queue: 'in-process', available: postgresAvailable },
  { database: 'postgres', queue: 'bullmq', available: postgresAvailable && redisAvailable },
];
export type Mode = (typeof MODES)[number];
export const ONE_MODE = MODES[0]!;
export const EACH_ONCE = [ONE_MODE, MODES[3]!];

/**
 * Inside a per-mode describe: `it` (skipped only when the mode's service is down) when `mode` is one of
 * `modes`, else a function that registers nothing.
 */
export function itIn(mode: Mode, modes: Mode[]): ReturnType<typeof it.runIf> {
  if (modes.includes(mode)) return it.runIf(mode.available);
  return (() => undefined) as unknown as ReturnType<typeof it.runIf>;
}

export interface TestStack {
  app: FastifyInstance;
  services: Services;
  config: Config;
  /** The PostgreSQL database of the stack (other processes' services may share it); null on PGlite. */
  databaseUrl: string | null;
  adminToken: string;
  /** Creates an activated user with the role "user" and returns a token. */
  userToken(email: string): Promise<string>;
  close(): Promise<void>;
}

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

/**
 * The preloaded Python the stacks of this test process share (started at the first launch, ended with
 * the process): importing torch, qiskit and the rest takes about 6 CPU-s, once per process instead of
 * once per stack. Each launch carries its stack's settings (data directory, file store, schemas), so a
 * stack sees only its own files. Stacks that choose their worker (WORKER_WARM, WORKER_PYTHON) or ask for
 * their own (ownWorker) get a pool of their own, as the product has.
 */
let sharedPool: WarmWorkerPool | undefined;
function sharedWarmPool(python: string): WarmWorkerPool {
  sharedPool ??= new WarmWorkerPool({ python, log: pino({ level: 'silent' }), keepProcessAlive: false });
  return sharedPool;
}

/** A fresh database (in-memory PGlite or a new PostgreSQL database) and an app on it. */
export async function startStack(
  mode: { database: DatabaseMode; queue: QueueMode },
  env: Record<string, string> = {},
  /**
   * runWorkers false: this stack only serves; its jobs run in queue workers started elsewhere.
   * ownWorker: a warm pool of its own instead of the process's shared one (a test of the pool itself).
   */
  options: { runWorkers?: boolean; ownWorker?: boolean } = {},
): Promise<TestStack> {
  const suffix = randomBytes(6).toString('hex');
  let db: Database;
  let dropDatabase = async () => {};
  let databaseUrl: string | null = null;
  if (mode.database === 'postgres') {
    const name = `qml_test_${suffix}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    db = await openDatabase({ databaseUrl, dataDir: '' });
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
    await migrate(db);
  } else {
    db = await migratedMemoryDatabase();
  }
  const config: Config = {
    // WORKER_WARM lazy: a stack starts its preloaded Python at its first job, not at start (most
    // stacks run none, and the imports take seconds).
    ...loadConfig({
      DATA_DIR: `/tmp/qml-test-${suffix}`,
      REDIS_PREFIX: `qml-test-${suffix}`,
      WORKER_WARM: 'lazy',
      ...env,
    }),
    jwtSecret: randomBytes(32).toString('hex'),
    redisUrl: mode.queue === 'bullmq' ? REDIS_URL : null,
  };
  const ownWorker = options.ownWorker || 'WORKER_WARM' in env || 'WORKER_PYTHON' in env;
  const services = createServices(config, db, pino({ level: 'silent' }), {
    runWorkers: options.runWorkers,
    sharedWarmPool: ownWorker ? undefined : sharedWarmPool(config.workerPython),
  });
  const app = await buildApp(services, { serveWebApp: false });
  const users = new UsersRepository(db);
  const createUser = async (email: string, password: string, roles: string[]) => {
    const passwordHash = await hashPassword(password);
    await db.transaction((tx) =>
      users.createActivated(tx, { name: email.split('@')[0]!, email, passwordHash, roles }),
    );
  };
  const tokenFor = async (email: string, password: string) => {
    const reply = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: email, password },
    });
    return (reply.json() as { data: { access_token: string } }).data.access_token;
  };
  await createUser(ADMIN.email, ADMIN.password, ['admin', 'user']);
  return {
    app,
    services,
    config,
    databaseUrl,
    adminToken: await tokenFor(ADMIN.email, ADMIN.password),
    async userToken(email: string) {
      await createUser(email, 'a user password', ['user']);
      return tokenFor(email, 'a user password');
    },
    async close() {
      await app.close();
      await services.close();
      await dropDatabase();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Submits the quantum self-test as the admin (POST /api/diagnostics/self-test); throws unless it is
 * accepted (201). Returns the new job's id and status.
 */
export async function submitSelfTest(stack: TestStack, body: object = {}) {
  const reply = await stack.app.inject({
    method: 'POST',
    url: '/api/diagnostics/self-test',
    headers: bearer(stack.adminToken),
    payload: body,
  });
  if (reply.statusCode !== 201) throw new Error(`self-test refused (${reply.statusCode}): ${reply.body}`);
  return (reply.json() as { data: { id: number; status: string } }).data;
}

/**
 * A server-sent event stream (GET `urlPath`, e.g. /api/jobs/{id}/events) as text, read over a real
 * socket until the server ends it; the app starts listening on a free port at the first call.
 * Rejects when the reply is not text/event-stream.
 */
export async function readEventStream(stack: TestStack, urlPath: string, token: string): Promise<string> {
  const server = stack.app.server;
  const address = server.listening
    ? `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    : await stack.app.listen({ port: 0, host: '127.0.0.1' });
  return new Promise<string>((resolve, reject) => {
    http
      .get(new URL(urlPath, address), { headers: bearer(token) }, (res) => {
        const type = String(res.headers['content-type']);
        if (!type.includes('text/event-stream')) {
          res.resume();
          reject(new Error(`${urlPath} answered ${res.statusCode} ${type}, not text/event-stream`));
          return;
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** Polls a job until it reaches a final status (or the deadline passes). */
export async function waitForFinal(stack: TestStack, jobId: number, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await stack.app.inject({ url: `/api/jobs/${jobId}`, headers: bearer(stack.adminToken) });
    const data = (
      reply.json() as {
        data: { job: { status: string }; events: { type: string; payload: Record<string, unknown> }[] };
      }
    ).data;
    if (['Completed', 'Failed', 'Manual Stop'].includes(data.job.status)) return data;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${data.job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls until the job is running in a worker process here. */
export async function waitForRunning(stack: TestStack, jobId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!stack.services.runner.pidOf(jobId)) {
    if (Date.now() > deadline) {
      const job = await stack.services.repositories.jobs.find(jobId);
      throw new Error(`job ${jobId} never started: ${job?.status ?? 'missing'} ${job?.error ?? ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Let the worker get past its imports so it is really working.
  const pid = stack.services.runner.pidOf(jobId)!;
  return pid;
}

/**
 * Stores `appData` as one of the owner's applications, executes it as the client does (the engine's body
 * for the dataset's rows and columns, POST /api/{problem}/execute-job; throws unless accepted) and waits
 * for the output's final status. The dataset's shape defaults to the shipped sample its URL names.
 * Returns the body it posted, the output's id and its final job record.
 */
export async function executeApplication(
  stack: TestStack,
  owner: { id: number; token: string },
  run: {
    problemId: string;
    appName: string;
    appData: AppData;
    dataset?: { rowCount: number; columns: string[] };
  },
  timeoutMs: number,
) {
  const problem = stack.services.registry.getProblem(run.problemId);
  const { rows } = await stack.services.db.query<{ id: number }>(
    `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
     returning id`,
    [owner.id, run.appName, run.problemId, JSON.stringify(run.appData)],
  );
  const dataset = run.dataset ?? sampleShape(stack, run.appData);
  // The request the engine maps (path and query too: brain tumor's model type and training range).
  const request = mapJobRequest(problem, run.appData, {
    ...dataset,
    applicationId: Number(rows[0]!.id),
    userId: owner.id,
  });
  const query = new URLSearchParams(Object.entries(request.query).map(([k, v]) => [k, String(v)])).toString();
  const body = request.body;
  const reply = await stack.app.inject({
    method: 'POST',
    url: `/api${request.path}${query ? `?${query}` : ''}`,
    headers: bearer(owner.token),
    payload: body,
  });
  if (reply.statusCode !== 201) throw new Error(`execute-job refused (${reply.statusCode}): ${reply.body}`);
  const outputId = Number((reply.json() as { data: { output_id: number } }).data.output_id);
  return { body, outputId, final: await waitForFinal(stack, outputId, timeoutMs) };
}

/** The rows and columns of the shipped sample `appData`'s dataset URL names (an example's own dataset). */
function sampleShape(stack: TestStack, appData: AppData): { rowCount: number; columns: string[] } {
  const dataset = appData.dataset as { url?: unknown; file?: unknown } | undefined;
  const url = String(dataset?.url ?? dataset?.file);
  const sample = stack.services.samples.find(path.basename(url));
  if (!sample) throw new Error(`no shipped sample for ${url}`);
  return { rowCount: sample.rows, columns: [...sample.columns] };
}

/** An output's detail as its owner reads it (GET /api/application-outputs/{id}/detail). */
export async function outputDetail<T = Record<string, unknown>>(
  stack: TestStack,
  token: string,
  outputId: number,
): Promise<T> {
  const reply = await stack.app.inject({
    url: `/api/application-outputs/${outputId}/detail`,
    headers: bearer(token),
  });
  return (reply.json() as { data: T }).data;
}
