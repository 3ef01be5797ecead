/**
 * Benchmark: bytes the landing page transfers in Chromium (playwright-core + Debian's chromium),
 * JavaScript and everything, against the built app in dist/ served by the real server. Prints the
 * body bytes as sent (compressed when the server compresses) and as decoded, and the JavaScript
 * transferred by the time the live demo's inputs first show (its first view), and, signed in, the
 * JavaScript transferred by the time a stock application's workspace first shows its form (the
 * workspace's first draw; whether the chart library was among it), and how long the landing page takes to
 * draw over a link with 150 ms of latency. Run after
 * `npm run build`: npm run bench:assets [-- directory] (another build directory, e.g. a copy of
 * dist/ without its .br/.gz files, to compare with uncompressed serving)
 */
import { chromium } from 'playwright-core';
import pino from 'pino';
import { buildApp, DIST_DIR } from '../../server/app';
import { bootstrapAdmin } from '../../server/auth/bootstrap-admin';
import { loadConfig } from '../../server/config';
import { openMemoryDatabase } from '../../server/db/database';
import { migrate } from '../../server/db/migrate';
import { createServices } from '../../server/services';

const db = await openMemoryDatabase();
await migrate(db);
const config = {
  ...loadConfig({ DATA_DIR: '/tmp/qml-bench-assets', WORKER_WARM: 'lazy' }),
  jwtSecret: 'x'.repeat(32),
};
const services = createServices(config, db, pino({ level: 'silent' }));
const app = await buildApp(services, { serveWebApp: true, webAppDir: process.argv[2] ?? DIST_DIR });
const address = await app.listen({ port: 0, host: '127.0.0.1' });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
const page = await browser.newPage();
const rows: { url: string; type: string; sent: number; decoded: number; encoding: string }[] = [];
// Requests finished when the live demo's inputs first showed: what its first view waited for.
const finished: string[] = [];
page.on('requestfinished', (request) => {
  finished.push(request.url());
  void (async () => {
    const response = await request.response();
    if (!response) return;
    const sizes = await request.sizes();
    const body = await response.body().catch(() => Buffer.alloc(0));
    rows.push({
      url: new URL(request.url()).pathname,
      type: request.resourceType(),
      sent: sizes.responseBodySize,
      decoded: body.length,
      encoding: (await response.headerValue('content-encoding')) ?? 'identity',
    });
  })();
});
const started = Date.now();
await page.goto(address, { waitUntil: 'commit' });
await page.locator('#live-demo form').waitFor({ state: 'visible', timeout: 60_000 });
const demoShownMs = Date.now() - started;
const beforeDemo = new Set(finished.map((url) => new URL(url).pathname));
await page.waitForLoadState('networkidle');
await page.waitForTimeout(500);

const sum = (list: typeof rows, key: 'sent' | 'decoded') => list.reduce((total, row) => total + row[key], 0);
const scripts = rows.filter((row) => row.type === 'script');
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
for (const row of rows.filter((r) => ['script', 'stylesheet', 'document'].includes(r.type)))
  console.log(
    `  ${row.url.padEnd(48)} ${row.encoding.padEnd(8)} ${kb(row.sent).padStart(10)} of ${kb(row.decoded)}`,
  );
console.log(
  `landing page: JavaScript ${kb(sum(scripts, 'sent'))} transferred (${kb(sum(scripts, 'decoded'))} decoded, ${scripts.length} files); ` +
    `all responses ${kb(sum(rows, 'sent'))} transferred of ${kb(sum(rows, 'decoded'))}; ` +
    `/api/examples requested ${rows.filter((r) => r.url === '/api/examples').length} time(s)`,
);
const firstScripts = scripts.filter((row) => beforeDemo.has(row.url));
console.log(
  `live demo's inputs shown after ${demoShownMs} ms: JavaScript ${kb(sum(firstScripts, 'sent'))} transferred by then ` +
    `(${firstScripts.length} files; chart library ${firstScripts.some((r) => r.url.includes('apexcharts')) ? 'among them' : 'not among them'})`,
);

// The workspace's first draw, signed in, in a fresh context (nothing cached from the landing page).
const admin = { email: 'bench@qmlstudio.local', password: 'bench-assets-1' };
await bootstrapAdmin(db, { adminEmail: admin.email, adminPassword: admin.password });
const login = await fetch(`${address}/api/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'password', username: admin.email, password: admin.password }),
});
const token = ((await login.json()) as { access_token: string }).access_token;
const api = async <T>(path: string, body?: unknown): Promise<T> => {
  const reply = await fetch(`${address}/api${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!reply.ok) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
  return (await reply.json()) as T;
};
const me = (await api<{ data: { id: number } }>('/users/me')).data;
const examples = (
  await api<{ data: { problem_id: string; app_name: string; app_data: unknown }[] }>('/examples')
).data;
const stock = examples.find((e) => e.problem_id === 'stock-price-prediction')!;
const created = await api<{ data: { id: number } }>('/applications/create-from-example', {
  app_name: 'Bench workspace',
  user_id: me.id,
  app_problem_id: stock.problem_id,
  app_data: stock.app_data,
});
const context = await browser.newContext();
await context.addInitScript((value) => localStorage.setItem('ACCESS_TOKEN', value), token);
const workspace = await context.newPage();
const workspaceScripts: { url: string; sent: number }[] = [];
workspace.on('requestfinished', (request) => {
  if (request.resourceType() !== 'script') return;
  void request
    .sizes()
    .then((sizes) =>
      workspaceScripts.push({ url: new URL(request.url()).pathname, sent: sizes.responseBodySize }),
    );
});
const workspaceStarted = Date.now();
await workspace.goto(`${address}/development/stock-price-prediction/${created.data.id}/bench-workspace`, {
  waitUntil: 'commit',
});
await workspace
  .locator('.workspace-panel form, .workspace-panel')
  .first()
  .waitFor({ state: 'visible', timeout: 60_000 });
const workspaceShownMs = Date.now() - workspaceStarted;
await workspace.waitForTimeout(300); // sizes of the last finished requests
const firstDraw = workspaceScripts.slice();
console.log(
  `workspace's first draw after ${workspaceShownMs} ms: JavaScript ${kb(firstDraw.reduce((t, r) => t + r.sent, 0))} transferred by then ` +
    `(${firstDraw.length} files; chart library ${firstDraw.some((r) => r.url.includes('apexcharts')) ? 'among them' : 'not among them'})`,
);
await context.close();

// The landing page's first draw over a slower link (150 ms each way, 10 Mbit/s, each time a fresh context):
// what a visitor far from the server waits for (the app draws once its scripts and validators are in).
const drawMs: number[] = [];
let validatorRequests = 0;
for (let i = 0; i < 7; i++) {
  const visitor = await browser.newContext();
  const slow = await visitor.newPage();
  slow.on('request', (request) => {
    if (request.url().endsWith('/api/schemas/validators.js')) validatorRequests += 1;
  });
  const cdp = await visitor.newCDPSession(slow);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: 1.25e6,
    uploadThroughput: 1.25e6,
  });
  const drawStarted = Date.now();
  await slow.goto(address);
  await slow.getByRole('button', { name: 'Login' }).waitFor({ timeout: 60_000 });
  drawMs.push(Date.now() - drawStarted);
  await visitor.close();
}
drawMs.sort((a, b) => a - b);
console.log(
  `landing page's first draw at 150 ms latency and 10 Mbit/s: median ${drawMs[3]} ms of 7 (${drawMs.join(', ')}); ` +
    `validators fetched ${validatorRequests / drawMs.length} time(s) a load`,
);
await browser.close();
await app.close();
await services.close();
process.exit(0);
