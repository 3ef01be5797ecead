// The written reports in Chromium against the built product (build first: npx vite build): two real
// runs of the stock example (LSTM and GRU, 5 epochs) through execute-job, then the workspace's Outputs
// tab: pin one, Analyze Output (Non-Technical) shows the written analysis; pin both, Compare Outputs
// (Technical) shows the conclusion, metrics with baselines, configurations and the curves chart; the
// overlay printed to an A4 PDF; the run table with both runs selected. Screenshots and the PDF go to tests/artifacts/ (and SHOTS_DIR).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import { callApi, copyExample, workspaceUrl } from './harness';
import { signedInPage, useSharedProduct } from './workspace-steps';

const SHOTS = [process.env.SHOTS_DIR, 'tests/artifacts'].filter((d): d is string => Boolean(d));
const shot = async (page: Page, name: string) => {
  for (const dir of SHOTS) await page.screenshot({ path: `${dir}/analysis-${name}.png` });
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- replies are read freely

const sample = (
  JSON.parse(readFileSync('samples/manifest.json', 'utf8')) as {
    samples: { file: string; rows: number; columns: string[] }[];
  }
).samples.find((s) => s.file === 'apple_google_stock.csv')!;

describe('written analysis and comparison in the browser', () => {
  const file = useSharedProduct();
  let appId: number;
  let appName: string;
  const outputs: number[] = [];

  /** Runs the application with `method` through the engine's mapped request, to Completed. */
  async function run(appData: Json, method: string) {
    const { product, session } = file;
    const data = structuredClone(appData);
    Object.assign(data.model_configurations, {
      model_type: 'Classical',
      training_model_method: method,
      epochs: 5,
    });
    delete data.model_configurations.qubits;
    delete data.model_configurations.quantum_device;
    const saved = await callApi(product, '/applications/update-app-data', {
      method: 'PUT',
      token: session.token,
      body: { application_id: appId, user_id: session.id, app_data: data },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const checked = await callApi<{ data: { job_request: { path: string; body: Json } } }>(
      product,
      '/problems/stock-price-prediction/check',
      {
        method: 'POST',
        token: session.token,
        body: {
          app_data: data,
          context: { application_id: appId, row_count: sample.rows, columns: sample.columns },
        },
      },
    );
    const request = checked.body.data.job_request;
    const started = await callApi<{ data: { output_id: number } }>(product, request.path, {
      method: 'POST',
      token: session.token,
      body: request.body,
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const id = started.body.data.output_id;
    for (const deadline = Date.now() + 150_000; Date.now() < deadline;) {
      const detail = await callApi<{ data: Json }>(product, `/application-outputs/${id}/detail`, {
        token: session.token,
      });
      if (detail.body.data.status === 'Completed') return id;
      if (['Failed', 'Manual Stop'].includes(detail.body.data.status))
        throw new Error(JSON.stringify(detail.body.data.error));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    throw new Error(`output ${id} did not complete`);
  }

  beforeAll(async () => {
    for (const dir of SHOTS) mkdirSync(dir, { recursive: true });
    const copied = await copyExample(file.product, file.session, 'stock-price-prediction');
    appId = copied.id;
    appName = copied.example.app_name;
    outputs.push(await run(copied.example.app_data as Json, 'LSTM'));
    outputs.push(await run(copied.example.app_data as Json, 'GRU'));
  }, 400_000);

  it('analyze and compare overlays show the reports, print to A4', async () => {
    const { product } = file;
    onTestFailed(() => console.log(product.output().slice(-4000)));
    const { context, page } = await signedInPage(file, { width: 1280, height: 1500 });
    await page.goto(workspaceUrl(product, 'stock-price-prediction', appId, appName));
    await page.getByRole('tab', { name: /Outputs/ }).click();
    await page.getByRole('checkbox', { name: `Pin output ${outputs[0]} to compare` }).check();
    await page.getByRole('radio', { name: 'Non-Technical' }).check();
    await page.getByRole('button', { name: 'Analyze Output' }).click();
    const analysis = page.getByTestId('written-analysis');
    await analysis.waitFor({ timeout: 30_000 });
    const analysisText = await analysis.innerText();
    expect(analysisText).toMatch(/In short/);
    expect(analysisText).toMatch(/typical error/);
    expect(analysisText).not.toMatch(/RMSE/);
    await shot(page, 'analyze-non-technical');

    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    for (const dir of SHOTS) writeFileSync(`${dir}/analysis-report.pdf`, pdf);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('button', { name: 'Back to outputs' }).click();
    await page.getByRole('checkbox', { name: `Pin output ${outputs[1]} to compare` }).check();
    await page.getByRole('radio', { name: 'Technical', exact: true }).check();
    await page.getByRole('button', { name: 'Compare Outputs' }).click();
    const comparison = page.getByTestId('written-comparison');
    await comparison.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('comparison-conclusion').innerText()).toMatch(/RMSE/);
    const configurations = page.getByTestId('comparison-configurations');
    expect(await configurations.locator('tbody tr').first().innerText()).toMatch(/LSTM\s+GRU/);
    await expect
      .poll(() => comparison.locator('.apexcharts-svg').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await comparison.scrollIntoViewIfNeeded();
    await shot(page, 'compare-technical');

    // the run table: both runs, sortable, their curves overlaid
    await page.getByRole('button', { name: 'Back to outputs' }).click();
    await page.getByRole('button', { name: 'Run table' }).click();
    const runs = page.getByTestId('runs');
    await runs.waitFor({ timeout: 30_000 });
    expect(await runs.locator('tbody tr').count()).toBe(2);
    await page.getByRole('button', { name: 'RMSE' }).click();
    for (const id of outputs) await page.getByRole('checkbox', { name: `Select run ${id}` }).check();
    await expect
      .poll(() => page.getByTestId('run-table').locator('.apexcharts-svg').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await shot(page, 'run-table');
    await context.close();
  });
});
