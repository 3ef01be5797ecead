import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startMailSink, type MailSink } from './mail-sink';

const ROOT = path.resolve(import.meta.dirname, '../..');

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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
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

/** Starts the built product (`tsx server/main.ts`) on a free port with a temporary data directory. */
export async function startProduct(env: Record<string, string> = {}): Promise<RunningProduct> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'qml-e2e-'));
  const admin = { email: 'admin@example.com', password: 'e2e admin password' };
  let output = '';
  const child: ChildProcess = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      LOG_LEVEL: 'warn',
      REDIS_PREFIX: `qml-e2e-${port}`,
      // Links in mails and OAuth redirects must come back to the address the browser uses.
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      // The landing page's example runs train in the background: only the tests of them turn them on.
      DEMO_RESULTS: 'off',
      // Most files run no job: the preloaded Python (about 5 CPU-s on this machine) starts at the first job instead.
      WORKER_WARM: 'lazy',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  // A deadline, not a speed check: on a loaded 2-core CI machine tsx compiling the server and the
  // migrations took over 60 s once. Start-up time is measured where it belongs, in tests/bench.
  const deadline = Date.now() + 170_000; // under the e2e hook timeout (180 s)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the product exited early:\n${output}`);
    try {
      const reply = await fetch(`${url}/api/openapi.json`);
      if (reply.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the product did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    admin,
    output: () => output,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
