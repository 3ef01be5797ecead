// npm run bench:run-table (after a build: npx vite build)
//
// How long the workspace's run table takes, in Chromium, to render, sort and filter an application's
// 200 outputs. The outputs are seeded directly in an in-memory database (a copy of a recorded real stock
// run, server/analysis/fixtures/stock-lstm.json, with its settings and metrics varied per row: SYNTHETIC
// numbers, for timing only, in an application named so). Each figure is the median of ROUNDS, from the
// user's action to the next painted frame (requestAnimationFrame then a task), measured in the page.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { buildApp } from '../../server/app';
import { ADMIN, startStack } from '../../server/test-support/harness';
import { launchBrowser } from '../e2e/harness';

const OUTPUTS = Number(process.env.RUNS ?? 200);
const ROUNDS = 5;
const ROOT = path.resolve(import.meta.dirname, '../..');

type Json = Record<string, unknown>;
const fixture = JSON.parse(
  readFileSync(path.join(ROOT, 'server/analysis/fixtures/stock-lstm.json'), 'utf8'),
) as {
  result: Json & { metrics: Record<string, number> };
  app_data: Json & { model_configurations: Json };
  params: Json;
  extension: Json;
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds from `act` (run in the page) to the next painted frame. */
async function timed(page: Page, act: string): Promise<number> {
  return page.evaluate(async (code) => {
    const start = performance.now();
    new Function(code)();
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return performance.now() - start;
  }, act);
}

const stack = await startStack(
  { database: 'pglite', queue: 'in-process' },
  { DEMO_RESULTS: 'off' },
  { runWorkers: false },
);
const app = await buildApp(stack.services, { serveWebApp: true });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address() as { port: number };
const url = `http://127.0.0.1:${address.port}`;
const browser = await launchBrowser();
try {
  const db = stack.services.db;
  const { rows: admins } = await db.query<{ id: string }>('select id from users where email = $1', [
    ADMIN.email,
  ]);
  const ownerId = admins[0]!.id;
  const appName = 'Run table bench (synthetic outputs)';
  const { rows: apps } = await db.query<{ id: string }>(
    `insert into applications (user_id, app_name, app_problem_id, status, app_data)
     values ($1, $2, 'stock-price-prediction', 'active', $3) returning id`,
    [ownerId, appName, JSON.stringify(fixture.app_data)],
  );
  const appId = Number(apps[0]!.id);
  const methods = ['LSTM', 'GRU', 'RNN'];
  for (let i = 0; i < OUTPUTS; i++) {
    const settings = {
      ...fixture.app_data.model_configurations,
      training_model_method: methods[i % 3],
      epochs: 5 + (i % 20),
      learning_rate: [0.001, 0.005, 0.01, 0.05][i % 4],
    };
    const scale = 0.8 + ((i * 37) % 41) / 100;
    const metrics = Object.fromEntries(
      Object.entries(fixture.result.metrics).map(([key, value]) => [
        key,
        value === null ? null : value * scale,
      ]),
    );
    await db.query(
      `insert into jobs (kind, owner_id, status, params, result, application_id, app_data, extension, name,
                         started_at, finished_at, execution_time)
       values ('stock-price-prediction', $1, 'Completed', $2, $3, $4, $5, $6, $7, now(), now(), 9.2)`,
      [
        ownerId,
        JSON.stringify(fixture.params),
        JSON.stringify({ ...fixture.result, metrics, model: methods[i % 3] }),
        appId,
        JSON.stringify({ ...fixture.app_data, model_configurations: settings }),
        JSON.stringify(fixture.extension),
        `${appName} #${i + 1}`,
      ],
    );
  }

  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto(url);
  await page.evaluate((token) => localStorage.setItem('ACCESS_TOKEN', token), stack.adminToken);
  const slug = (name: string) => name.trim().toLowerCase().replace(/\s+/g, '-');
  await page.goto(`${url}/development/stock-price-prediction/${appId}/${slug(appName)}`);
  await page.getByRole('tab', { name: /Outputs/ }).click();
  const open: number[] = [];
  const sort: number[] = [];
  const filter: number[] = [];
  const clear: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // From the click to the rows shown: the request, the reply and the render.
    const started = Date.now();
    await page.getByRole('button', { name: 'Run table' }).click();
    await page.getByText(`${OUTPUTS} of ${OUTPUTS} runs`, { exact: false }).waitFor();
    open.push(Date.now() - started);
    sort.push(
      await timed(
        page,
        `[...document.querySelectorAll('[data-testid=runs] th button')].find((b) => b.textContent === 'RMSE').click()`,
      ),
    );
    const setQuery = (text: string) =>
      `const input = document.querySelector('input[aria-label="Search or filter runs"]');
       Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(text)});
       input.dispatchEvent(new Event('input', { bubbles: true }));`;
    filter.push(await timed(page, setQuery('rmse < 0.3')));
    clear.push(await timed(page, setQuery('')));
    await page.getByRole('button', { name: 'Back to outputs' }).click();
  }
  console.log(`run table, ${OUTPUTS} outputs, Chromium, median of ${ROUNDS} (ms):`);
  console.log(`  open (click to ${OUTPUTS} rows shown)   ${median(open).toFixed(0)}`);
  console.log(`  sort by RMSE (click to paint)       ${median(sort).toFixed(0)}`);
  console.log(`  filter 'rmse < 0.3' (input to paint) ${median(filter).toFixed(0)}`);
  console.log(`  clear the filter (input to paint)   ${median(clear).toFixed(0)}`);
} finally {
  await browser.close();
  await app.close();
  await stack.close();
}
