// A job run in Chromium against the built product (build first: npx vite build): the signed-in admin
// copies an example application, presses Run on its detail page, sees 'Application is running.' and
// the output go from Ongoing to Completed in the polled list, opens it and finds its tabs, the
// metrics next to the baseline and the worker's charts drawn by ApexCharts (SVG paths). The output's
// stream is watched live on the way; the Model Inference tab predicts an uploaded CSV; a second run
// is stopped. Screenshots at 1280 x 1500 px go to tests/artifacts/ (and SHOTS_DIR).

import { mkdirSync, readFileSync } from 'node:fs';

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';

import { copyExample } from './harness';
import { runFromWorkspace, useSharedProduct } from './workspace-steps';

const SHOTS = [process.env.SHOTS_DIR, 'tests/artifacts'].filter((d): d is string => Boolean(d));
// Not fullPage: Chromium's full-page capture resizes the page to 1x1 for a moment, which the mobile
// guard (under 768 px) answers by unmounting the app; a tall viewport shows the charts instead.
const shot = async (page: Page, name: string) => {
  for (const dir of SHOTS) await page.screenshot({ path: `${dir}/runs-${name}.png` });
};

/** The example run here: RUN_EXAMPLE picks another problem's example (the stock example by default). */
const EXAMPLE = process.env.RUN_EXAMPLE ?? 'stock-price-prediction';
/** The Model Type the list shows for the example's output (the stock example trains a quantum model). */
const expectedModelType = process.env.RUN_MODEL_TYPE ?? 'Quantum';
/** Training on the 2-core CI machine: a deadline, not a speed check (bench:jobs measures speed). */
const RUN_DEADLINE_MS = 150_000;

describe('running an application', () => {
  const file = useSharedProduct();
  let appId: number;

  beforeAll(async () => {
    for (const dir of SHOTS) mkdirSync(dir, { recursive: true });
    // The example as it is: with 10 epochs instead of its 50 the quantum model's forecast came out flat
    // here, and then the output has no direction accuracy to show.
    appId = (await copyExample(file.product, file.session, EXAMPLE)).id;
  });

  it(
    'runs the example to Completed and shows its charts and metrics beside the baseline',
    async () => {
      const { product } = file;
      // Run: the toast, the button held for the running flag, a new Ongoing row in the list.
      const { context, page, errors, row, outputId } = await runFromWorkspace(file, appId, {
        onFailure: async (failed) => {
          await shot(failed, 'failed');
          console.log(product.output().slice(-4000));
        },
        whileRunning: async (running) => {
          expect(await running.getByRole('button', { name: 'Running…' }).isDisabled()).toBe(true);
        },
      });
      expect(outputId).toBeGreaterThan(0);
      await shot(page, 'running-list');

      // The output while it runs: live progress from its stream (or already done on a fast machine).
      await row.getByRole('link', { name: 'View Details' }).click();
      await page.waitForURL(`**/applications/${appId}/outputs/${outputId}`);
      await page.getByRole('tab', { name: 'Pipeline' }).waitFor();
      expect(await page.getByRole('tab', { name: 'Pipeline' }).getAttribute('aria-selected')).toBe('true');
      const ongoing = (await page.getByTestId('job-status').getAttribute('data-status')) !== 'Completed';
      if (ongoing) {
        // Progress from the stream, or the end when the run finishes between two events.
        await page
          .getByTestId('live-progress')
          .getByText(/Epoch|%/)
          .or(page.locator('[data-testid="job-status"][data-status="Completed"]'))
          .first()
          .waitFor({ timeout: 60_000 })
          .catch(() => undefined); // a loaded machine may keep it queued that long: the deadline is below
        await page.getByRole('tab', { name: 'Visualization' }).click();
        await shot(page, 'live');
      }

      // Completed: the detail is read again when the stream ends. The badge may say Completed from the
      // stream's last event a moment before that read answers (execution time, logs): wait for them.
      await page
        .locator('[data-testid="job-status"][data-status="Completed"]')
        .waitFor({ timeout: RUN_DEADLINE_MS });
      await expect
        .poll(() => page.getByTestId('execution-time').textContent(), { timeout: 15_000 })
        .toMatch(/^\d+\.\d{2} s$/);
      const tabs = await page.getByRole('tab').allTextContents();
      expect(tabs).toEqual(['Model Inference', 'Pipeline', 'Results', 'Visualization']);
      await page.getByRole('tab', { name: 'Pipeline' }).click();
      await page.locator('.qs-flow-node').first().waitFor();
      await shot(page, 'pipeline');

      await page.getByRole('tab', { name: 'Visualization' }).click();
      const table = page.getByTestId('metrics-table');
      await table.waitFor();
      const headers = await table.locator('thead th').allTextContents();
      expect(headers.length).toBe(3); // metric, the model, the baseline
      // Rows are labelled in words ('MAPE (%)'); data-metric keeps the worker's key.
      const rows = await table
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-metric')));
      expect(rows.slice(0, 6)).toEqual(['mse', 'rmse', 'mae', 'mape', 'r2', 'direction_accuracy']);
      expect(await table.locator('tbody th').first().textContent()).toBe('MSE');
      const charts = page.getByTestId('chart-spec');
      await charts.first().locator('svg path').first().waitFor();
      expect(await charts.count()).toBeGreaterThanOrEqual(3);
      for (let i = 0; i < (await charts.count()); i++) {
        await charts.nth(i).scrollIntoViewIfNeeded();
        expect(await charts.nth(i).locator('svg path').count()).toBeGreaterThan(0);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'visualization');

      await page.getByRole('tab', { name: 'Results' }).click();
      await expect.poll(() => page.getByTestId('result-logs').textContent()).toContain('Completed');
      await shot(page, 'results');

      // Model Inference: the first 200 days of the sample as a CSV file, the trained features ticked.
      await page.getByRole('tab', { name: 'Model Inference' }).click();
      const csv = readFileSync('samples/apple_google_stock.csv', 'utf8').split('\n').slice(0, 201).join('\n');
      await page
        .getByTestId('inference-file')
        .setInputFiles({ name: 'aapl-200.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByText('Only showing 30 rows').waitFor();
      expect(await page.getByTestId('inference-preview').locator('tbody tr').count()).toBe(30);
      for (const feature of ['Close', 'High', 'Low', 'Open'])
        expect(await page.getByRole('checkbox', { name: feature, exact: true }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Start Inferencing' }).click();
      const predicted = page.getByTestId('inference-result');
      await predicted.waitFor({ timeout: 60_000 });
      const predictions = await predicted.locator('tbody tr').count();
      expect(predictions).toBeGreaterThan(100);
      // The 200 rows as the forecaster used them: its input window, then one prediction per row.
      expect(await page.getByTestId('inference-summary').textContent()).toMatch(
        new RegExp(`^${predictions} predictions; the first ${200 - predictions} rows are the input window `),
      );
      await shot(page, 'inference');

      // Back to the list: the row is Completed, with its model type.
      await page.getByRole('button', { name: /Outputs/ }).click();
      await page.locator('table.applications-table [data-status="Completed"]').waitFor();
      const done = page.locator('table.applications-table tbody tr').first();
      expect(await done.locator('td').nth(4).textContent()).toBe(expectedModelType);
      await shot(page, 'completed-list');
      expect(errors).toEqual([]);
      await context.close();
    },
    RUN_DEADLINE_MS + 90_000,
  );

  it('stops a running output from its detail page: Manual Stop, blue', async () => {
    const { context, page, row } = await runFromWorkspace(file, appId, {
      onFailure: (failed) => shot(failed, 'stop-failed'),
    });
    await row.locator('[data-testid="job-status"].ongoing').waitFor();
    await row.getByRole('link', { name: 'View Details' }).click();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('button', { name: 'Yes, stop' }).click();
    const badge = page.locator('[data-testid="job-status"][data-status="Manual Stop"]');
    await badge.waitFor({ timeout: 30_000 });
    expect(await badge.getAttribute('class')).toContain('stopped');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await shot(page, 'stopped');
    await context.close();
  });
});
