// Repeated seeds in Chromium against the built product (build first: npx vite build): a stock
// application saved with an LSTM and Repeats 2 runs from its detail page, and its Completed output's
// Visualization shows 'Repeated over 2 seeds (42 to 43)', mean ± sd per metric beside the baseline,
// and the loss curves drawn with their ± sd bands. Screenshot: tests/artifacts/repeats-visualization.png.

import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import { adminSession, callApi, launchBrowser, signIn, startProduct, type RunningProduct } from './harness';

const SHOTS = [process.env.SHOTS_DIR, 'tests/artifacts'].filter((d): d is string => Boolean(d));
const shot = async (page: Page, name: string) => {
  for (const dir of SHOTS) await page.screenshot({ path: `${dir}/repeats-${name}.png` });
};
/** Two LSTM trainings on the 2-core CI machine: a deadline, not a speed check. */
const RUN_DEADLINE_MS = 180_000;

interface Example {
  problem_id: string;
  app_name: string;
  app_data: { model_configurations: Record<string, unknown> } & Record<string, unknown>;
}

describe('repeated seeds in the browser', () => {
  let product: RunningProduct;
  let browser: Browser;
  let appId: number;

  beforeAll(async () => {
    for (const dir of SHOTS) mkdirSync(dir, { recursive: true });
    product = await startProduct();
    browser = await launchBrowser();
    const { token, id } = await adminSession(product);
    const examples = (await callApi<{ data: Example[] }>(product, '/examples')).body.data;
    const example = examples.find((e) => e.problem_id === 'stock-price-prediction')!;
    const configurations = { ...example.app_data.model_configurations };
    delete configurations.qubits;
    delete configurations.quantum_device;
    Object.assign(configurations, {
      model_type: 'Classical',
      training_model_method: 'LSTM',
      epochs: 5,
      repeats: 2,
    });
    const created = await callApi<{ data: { id: number } }>(product, '/applications/create-from-example', {
      method: 'POST',
      token,
      body: {
        app_name: 'Repeats example',
        user_id: id,
        app_problem_id: example.problem_id,
        app_data: { ...example.app_data, model_configurations: configurations },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    appId = created.body.data.id;
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it(
    'runs with two seeds and draws the metrics as mean ± sd and the losses with bands',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 1500 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      onTestFailed(async () => {
        await shot(page, 'failed').catch(() => undefined);
        console.log(product.output().slice(-4000));
      });
      await signIn(page, product);
      await page.goto(`${product.url}/applications/${appId}`);
      await page.getByText('No outputs found').waitFor();
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.getByText('Application is running.').waitFor();
      const row = page.locator('table.applications-table tbody tr').first();
      await row.getByTestId('job-status').waitFor();
      await row.getByRole('link', { name: 'View Details' }).click();
      await page
        .locator('[data-testid="job-status"][data-status="Completed"]')
        .waitFor({ timeout: RUN_DEADLINE_MS });

      await page.getByRole('tab', { name: 'Visualization' }).click();
      const summary = page.getByTestId('repeats-summary');
      await summary.waitFor();
      expect(await summary.locator('h4').textContent()).toBe('Repeated over 2 seeds (42 to 43)');
      const rmse = await summary.locator('tr[data-metric="rmse"]').textContent();
      expect(rmse).toMatch(/±/);
      const bands = summary.getByTestId('loss-band');
      expect(await bands.count()).toBe(2);
      for (let i = 0; i < 2; i++) {
        const points = (await bands.nth(i).getAttribute('points'))!.split(' ');
        expect(points).toHaveLength(2 * 5); // 5 epochs: the upper edge, then the lower edge back
      }
      await summary.scrollIntoViewIfNeeded();
      await shot(page, 'visualization');
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_DEADLINE_MS + 60_000,
  );
});
