import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type BrowserServer,
  type Page,
} from 'playwright-core';
import { inject } from 'vitest';
import { startMailSink, type MailSink } from './mail-sink';
import { SERVER_BUNDLE_DIR, serverBundle } from '../../server/test-support/server-bundle';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIGRATIONS_DIR = path.join(ROOT, 'server/db/migrations');
const ADMIN = { email: 'admin@example.com', password: 'e2e admin password' };

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The run's one Chromium (global-setup.ts), which the files connect to. */
export function launchBrowserServer(): Promise<BrowserServer> {
  return chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * A browser for a file: a connection to the run's Chromium (global-setup.ts) when there is one, else a
 * Chromium of its own. Closing it closes the file's contexts and pages (and only its own Chromium).
 */
export function launchBrowser(): Promise<Browser> {
  const endpoint = inject('browserWsEndpoint');
  if (endpoint) return chromium.connect(endpoint, { timeout: 60_000 });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * A new context whose pages are signed in as `token`'s user: the access token in the app's local
 * storage, where a sign-in through the Login dialog leaves it (the dialog itself stays proven: signIn
 * below in landing-shell, new users' sign-ins in accounts, a refused one in self-test). Saves each
 * test the landing page's load and the dialog.
 */
export function signedInContext(
  browser: Browser,
  product: RunningProduct,
  token: string,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  return browser.newContext({
    // Less motion, as a user may ask of their system: the Ongoing badge's ring stands still instead of
    // having Chromium draw frames for the whole of a run (about 0.07 CPU-s a second here). Both settings
    // of the stylesheet are checked in landing-shell.test.ts.
    reducedMotion: 'reduce',
    ...options,
    storageState: {
      cookies: [],
      origins: [{ origin: product.url, localStorage: [{ name: 'ACCESS_TOKEN', value: token }] }],
    },
  });
}

/** Signs the product's admin in through the top bar's Login dialog, as a user would. */
export async function signIn(page: Page, product: RunningProduct): Promise<void> {
  await page.goto(product.url);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.fill('input[name=email]', product.admin.email);
  await page.fill('input[name=password]', product.admin.password);
  await page.locator('form').getByRole('button', { name: 'Login' }).click();
  await page.getByRole('button', { name: 'Account menu' }).waitFor();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface RunningProduct {
  url: string;
  admin: { email: string; password: string };
  output: () => string;
  stop(): Promise<void>;
}

/**
 * A path the e2e global setup provides (the preloaded worker's socket, the shared-products directory);
 * '' where nothing is provided: in the global setup itself (the template's product) and outside vitest.
 */
function providedPath(key: 'workerServeSocket' | 'sharedProductsDir'): string {
  try {
    return inject(key);
  } catch {
    return '';
  }
}

/** Environment of every product start: a free port, a data directory, the admin, quiet logs. */
function productEnv(port: number, dataDir: string, env: Record<string, string>): NodeJS.ProcessEnv {
  const workerSocket = providedPath('workerServeSocket');
  return {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    REDIS_PREFIX: `qml-e2e-${port}`,
    // Links in mails and OAuth redirects must come back to the address the browser uses.
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The landing page's example runs train in the background: only the tests of them turn them on.
    DEMO_RESULTS: 'off',
    // The run's one preloaded worker (global-setup.ts): jobs fork from it with this product's settings.
    ...(workerSocket && { WORKER_SERVE_SOCKET: workerSocket }),
    // Most files run no job: the preloaded Python (about 5 CPU-s on this machine) starts at the first job instead.
    WORKER_WARM: 'lazy',
    // The products of a run share one kept worker runtime check (WORKER_CHECK_RECORD): a start within
    // 5 minutes of a passing check, with the venv and worker package unchanged, takes it instead of
    // importing torch and qiskit again (about 5.6 CPU-s per start). The self-test checks for real.
    WORKER_CHECK_RECORD: path.join(SERVER_BUNDLE_DIR, 'worker-check.json'),
    ...env,
  };
}

/**
 * The server process: the bundled server under node (server-bundle.ts), or `tsx server/main.ts` with
 * E2E_SERVER=tsx (the sources as they are, without the build).
 */
async function serverCommand(): Promise<[string, string[]]> {
  if (process.env.E2E_SERVER === 'tsx') return [process.execPath, ['--import', 'tsx', 'server/main.ts']];
  return [process.execPath, ['--enable-source-maps', await serverBundle()]];
}

interface Launched {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Spawns the server and resolves once it answers (its OpenAPI document). */
async function launch(dataDir: string, env: Record<string, string>): Promise<Launched> {
  const port = await freePort();
  const [command, args] = await serverCommand();
  let output = '';
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: productEnv(port, dataDir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // A deadline, not a speed check: on a loaded 2-core CI machine a start (the embedded database's
  // migrations, the worker runtime's check) took over 60 s once. Start-up time is measured in tests/bench.
  const deadline = Date.now() + 170_000; // under the e2e hook timeout (180 s)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited early:\n${output}`);
    try {
      const reply = await fetch(`${url}/api/openapi.json`);
      if (reply.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the product did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, child, output: () => output };
}

/** A port found free can be taken by another process before the server binds it: one more try then. */
async function launchOnFreePort(dataDir: string, env: Record<string, string>): Promise<Launched> {
  try {
    return await launch(dataDir, env);
  } catch (error) {
    if (!String(error).includes('EADDRINUSE')) throw error;
    return launch(dataDir, env);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The embedded database of a product that has just started for the first time and stopped (migrated,
 * the harness's admin created), under a key of the migrations, PGlite's version and the admin: a product
 * copies it instead of creating and migrating a database of its own (initdb in WebAssembly and every
 * migration: about 5 CPU-s and half a minute of a loaded machine per start).
 */
function databaseTemplatePath(): string {
  const key = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS_DIR).sort())
    key
      .update(name)
      .update('\0')
      .update(readFileSync(path.join(MIGRATIONS_DIR, name)));
  key.update(readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  key.update(JSON.stringify(ADMIN));
  return path.join(SERVER_BUNDLE_DIR, `database-${key.digest('hex').slice(0, 16)}`);
}

/**
 * Makes the database template when there is none for the current migrations (the e2e project's global
 * setup, so no file's start-up hook pays for it): the product started once on an empty directory, by
 * the same server and settings as the tests', and stopped cleanly.
 */
export async function makeDatabaseTemplate(): Promise<void> {
  const template = databaseTemplatePath();
  if (process.env.E2E_SERVER === 'tsx' || existsSync(template)) return;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-e2e-template-'));
  try {
    const first = await launchOnFreePort(dataDir, {});
    await stopChild(first.child);
    if (first.child.exitCode !== 0)
      throw new Error(`the template's product did not stop cleanly:\n${first.output()}`);
    const staging = `${template}.${process.pid}.partial`;
    cpSync(path.join(dataDir, 'pglite'), staging, { recursive: true });
    try {
      renameSync(staging, template);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // made beside another run: theirs is the same
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The template when it is there (made by the global setup), else null: the product migrates its own. */
function databaseTemplate(): string | null {
  if (process.env.E2E_SERVER === 'tsx') return null;
  const template = databaseTemplatePath();
  return existsSync(template) ? template : null;
}

export interface StartOptions {
  /**
   * A new embedded database created and migrated by this start (a fresh install), instead of a copy of
   * the migrated template. Products on PostgreSQL (DATABASE_URL) always migrate their own.
   */
  freshDatabase?: boolean;
  /** The worker's shared product (sharedProduct): recorded for the teardown, and ended with the worker. */
  shared?: boolean;
}

/** A shared product ends with its worker: recorded for the global teardown, and sent SIGTERM at exit. */
function keepUntilTheEnd(child: ChildProcess, dataDir: string): void {
  const dir = providedPath('sharedProductsDir');
  if (dir) writeFileSync(path.join(dir, `${child.pid}.json`), JSON.stringify({ pid: child.pid, dataDir }));
  process.once('exit', () => child.kill('SIGTERM'));
}

/**
 * Starts the built product on a free port with a temporary data directory: the server bundled by
 * server-bundle.ts under node, its embedded database copied from the migrated template.
 */
export async function startProduct(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningProduct> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-e2e-'));
  try {
    const template = options.freshDatabase || env.DATABASE_URL ? null : databaseTemplate();
    if (template) cpSync(template, path.join(dataDir, 'pglite'), { recursive: true });
    const { url, child, output } = await launchOnFreePort(dataDir, env);
    if (options.shared) keepUntilTheEnd(child, dataDir);
    return {
      url,
      admin: { ...ADMIN },
      output,
      async stop() {
        await stopChild(child);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The product the files of this test worker share when they need no settings of their own and check
 * nothing of the whole product that another file changes (counts of all applications, the analytics
 * totals, the live demo's first training): each such file signs in, makes its own applications and
 * finds them by id, as two people using one installation would. A worker runs its files one after
 * another, so they never use it at the same time. Started at the first call (about 3.5 CPU-s and a few
 * seconds of a loaded machine, once per worker instead of once per file); its `stop()` only releases
 * it. It is stopped when the worker exits, or by the global setup's teardown when the worker is ended
 * without exiting cleanly (the pid and data directory recorded in the run's shared-products directory).
 */
let shared: Promise<RunningProduct> | undefined;
export function sharedProduct(): Promise<RunningProduct> {
  shared ??= startProduct({}, { shared: true }).catch((error: unknown) => {
    shared = undefined; // the next file tries again
    throw error;
  });
  return shared.then((product) => ({ ...product, stop: async () => undefined }));
}

/**
 * The e2e global teardown: stops the shared products the workers recorded (any their worker's exit did
 * not end) and removes their data directories.
 */
export async function stopSharedProducts(dir: string): Promise<void> {
  const records = readdirSync(dir).map(
    (name) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { pid: number; dataDir: string },
  );
  await Promise.all(
    records.map(async ({ pid, dataDir }) => {
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(pid, 'SIGTERM');
      for (let waited = 0; alive() && waited < 20_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      if (alive()) process.kill(pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }),
  );
  rmSync(dir, { recursive: true, force: true });
}

/** A mail sink and the product sending its mail there, from 'QML Studio <studio@example.com>'. */
export async function startProductWithMail(): Promise<{ sink: MailSink; product: RunningProduct }> {
  const sink = await startMailSink();
  try {
    const product = await startProduct({ SMTP_URL: sink.url, MAIL_FROM: 'QML Studio <studio@example.com>' });
    return { sink, product };
  } catch (error) {
    await sink.stop();
    throw error;
  }
}

/** A JSON call to the running product's API (for checks behind what the page shows). */
export async function callApi<T = unknown>(
  product: RunningProduct,
  apiPath: string,
  init: { method?: string; token?: string | null; body?: unknown } = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const reply = await fetch(`${product.url}/api${apiPath}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: 'manual',
  });
  const text = await reply.text();
  return { status: reply.status, body: (text ? JSON.parse(text) : null) as T, headers: reply.headers };
}

/** An access token for the product's admin through POST /api/login (the form-encoded password grant). */
export async function adminToken(product: RunningProduct): Promise<string> {
  const reply = await fetch(`${product.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      username: product.admin.email,
      password: product.admin.password,
    }),
  });
  const body = (await reply.json()) as { access_token?: string; detail?: string };
  if (!body.access_token) throw new Error(`the admin could not sign in: ${reply.status} ${body.detail}`);
  return body.access_token;
}

/** The product's admin signed in through the API: an access token and the admin's user id. */
export async function adminSession(product: RunningProduct): Promise<{ token: string; id: number }> {
  const token = await adminToken(product);
  const me = await callApi<{ data: { id: number } }>(product, '/users/me', { token });
  return { token, id: me.body.data.id };
}

/** An example application as GET /api/examples lists it. */
export interface ExampleApplication {
  problem_id: string;
  app_name: string;
  app_data: Record<string, unknown>;
}

/**
 * Copies the example of a problem into a new application of the admin's (as the Examples page does). A
 * problem whose example the gallery leaves out (`"gallery": false`, e.g. demand forecasting) is copied
 * from its schema file's example.
 */
export async function copyExample(
  product: RunningProduct,
  session: { token: string; id: number },
  problemId: string,
): Promise<{ id: number; example: ExampleApplication }> {
  const examples = (await callApi<{ data: ExampleApplication[] }>(product, '/examples')).body.data;
  const example = examples.find((e) => e.problem_id === problemId) ?? schemaExample(problemId);
  const created = await callApi<{ data: { id: number } }>(product, '/applications/create-from-example', {
    method: 'POST',
    token: session.token,
    body: {
      app_name: example.app_name,
      user_id: session.id,
      app_problem_id: example.problem_id,
      app_data: example.app_data,
    },
  });
  if (created.status !== 201) throw new Error(`copying ${problemId}: ${JSON.stringify(created.body)}`);
  return { id: created.body.data.id, example };
}

function schemaExample(problemId: string): ExampleApplication {
  const { example } = readProblem(problemId) as {
    example?: { appName: string; appData: Record<string, unknown> };
  };
  if (!example) throw new Error(`no example for ${problemId}`);
  return { problem_id: problemId, app_name: example.appName, app_data: example.appData };
}

/** A problem's schema file as JSON. */
function readProblem(problemId: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(ROOT, 'schemas/problems', `${problemId}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** A new application of the admin's with the problem's default (empty) app_data. */
export async function createBlankApplication(
  product: RunningProduct,
  session: { token: string; id: number },
  problemId: string,
  appName: string,
): Promise<number> {
  const created = await callApi<{ data: { id: number } }>(product, '/applications/create-blank', {
    method: 'POST',
    token: session.token,
    body: { app_name: appName, user_id: session.id, app_problem_id: problemId, status: 'active' },
  });
  if (created.status !== 201) throw new Error(`creating ${problemId}: ${JSON.stringify(created.body)}`);
  return created.body.data.id;
}

/**
 * The workspace address of an application (spec section 2): /development/{problem name}/{id}/{app name},
 * names lower-cased with spaces as hyphens. The problem's name is read from its schema file.
 */
export function workspaceUrl(
  product: RunningProduct,
  problemId: string,
  appId: number,
  appName: string,
): string {
  const problem = readProblem(problemId) as { name: string; workspace: string };
  const slug = (name: string) => name.trim().toLowerCase().replace(/\s+/g, '-');
  return `${product.url}/${problem.workspace}/${slug(problem.name)}/${appId}/${slug(appName)}`;
}
