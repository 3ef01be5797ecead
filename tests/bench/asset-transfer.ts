/**
 * Benchmark: bytes the landing page transfers in Chromium (playwright-core + Debian's chromium),
 * JavaScript and everything, against the built app in dist/ served by the real server. Prints the
 * body bytes as sent (compressed when the server compresses) and as decoded, and the JavaScript
 * transferred by the time the live demo's inputs first show (its first view). Run after
 * `npm run build`: npm run bench:assets [-- directory] (another build directory, e.g. a copy of
 * dist/ without its .br/.gz files, to compare with uncompressed serving)
 */
import { chromium } from 'playwright-core';
import pino from 'pino';
import { buildApp, DIST_DIR } from '../../server/app';
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
await browser.close();
await app.close();
await services.close();
process.exit(0);
