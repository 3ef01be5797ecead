// Repeated seeds in Chromium against the built product (build first: npx vite build): applications
// saved with Repeats 2 run from their detail page, and each Completed output's Visualization shows
// 'Repeated over 2 seeds (42 to 43)', mean ± sd per metric beside the baseline, and its curves drawn as
// the mean with a ± 1 sd band: a stock LSTM's loss and its forecast's predicted line (a curve that is
// not a loss), a fraud VQC's training loss with its confusion matrix summed over the seeds, a brain
// tumor FCN's accuracy history with each seed's confusion matrix on demand.
// Screenshots: tests/artifacts/repeats-*.png.

import { mkdirSync } from 'node:fs';

import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';

import { callApi } from './harness';
import { runFromWorkspace, useSharedProduct } from './workspace-steps';

const SHOTS = [process.env.SHOTS_DIR, 'tests/artifacts'].filter((d): d is string => Boolean(d));
const shot = async (page: Page, name: string, focus?: Locator) => {
  if (focus) await focus.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  for (const dir of SHOTS) await page.screenshot({ path: `${dir}/repeats-${name}.png` });
};
/** Two trainings per output on the 2-core CI machine: a deadline, not a speed check. */
const RUN_DEADLINE_MS = 240_000;

interface Example {
  problem_id: string;
  app_name: string;
  app_data: { model_configurations: Record<string, unknown> } & Record<string, unknown>;
}

/** A figure of the output's charts by its title. */
const chart = (page: Page, title: RegExp) =>
  page.getByTestId('output-charts').locator('figure[data-testid="chart-spec"]', {
    has: page.locator('figcaption strong', { hasText: title }),
  });

/** ApexCharts' group of a series: named after it with spaces as 'x'. */
const seriesGroup = (series: string) => `.apexcharts-series[seriesName="${series.replace(/ /g, 'x')}"]`;

/** The band of a drawn chart: ApexCharts' rangeArea path, named '{series} ± 1 sd' (its legend's words). */
async function expectBand(figure: Locator, series: string): Promise<void> {
  const band = figure.locator(
    `.apexcharts-rangeArea-series ${seriesGroup(`${series} ± 1 sd`)} path.apexcharts-rangeArea`,
  );
  await band.first().waitFor({ timeout: 30_000 });
  expect((await band.first().getAttribute('d'))!.length).toBeGreaterThan(20);
  expect(await figure.locator('.apexcharts-legend').innerText()).toContain(`${series} ± 1 sd`);
  expect(await figure.getByTestId('chart-band-caption').innerText()).toContain(
    'Mean over 2 seeds; shaded band: mean ± 1 sd',
  );
}

describe('repeated seeds in the browser', () => {
  const file = useSharedProduct();
  let examples: Example[];

  beforeAll(async () => {
    for (const dir of SHOTS) mkdirSync(dir, { recursive: true });
    examples = (await callApi<{ data: Example[] }>(file.product, '/examples')).body.data;
  });

  /** An application copied from the problem's example with `changes` to its model configurations. */
  async function createRepeated(
    problemId: string,
    name: string,
    changes: Record<string, unknown>,
    drop: string[] = [],
    dataset?: Record<string, unknown>,
  ): Promise<number> {
    const example = examples.find((e) => e.problem_id === problemId)!;
    const configurations = { ...example.app_data.model_configurations };
    for (const key of drop) delete configurations[key];
    Object.assign(configurations, changes);
    const appData: Record<string, unknown> = { ...example.app_data, model_configurations: configurations };
    if (dataset) appData.dataset = { ...(example.app_data.dataset as object), ...dataset };
    const { product, session } = file;
    const created = await callApi<{ data: { id: number } }>(product, '/applications/create-from-example', {
      method: 'POST',
      token: session.token,
      body: { app_name: name, user_id: session.id, app_problem_id: example.problem_id, app_data: appData },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.id;
  }

  /** Runs the application from its detail page and opens its Completed output's Visualization. */
  async function runToVisualization(
    appId: number,
    shotName: string,
  ): Promise<{ page: Page; errors: string[] }> {
    const { page, errors, row } = await runFromWorkspace(file, appId, {
      onFailure: async (failed) => {
        await shot(failed, `${shotName}-failed`);
        console.log(file.product.output().slice(-4000));
      },
    });
    await row.getByRole('link', { name: 'View Details' }).click();
    await page
      .locator('[data-testid="job-status"][data-status="Completed"]')
      .waitFor({ timeout: RUN_DEADLINE_MS });
    await page.getByRole('tab', { name: 'Visualization' }).click();
    return { page, errors };
  }

  it(
    "stock LSTM: the metrics as mean ± sd, the losses and the forecast's predicted line with bands",
    async () => {
      // Two seeds' curves of 5 points each draw the band as 20 did, for a quarter of the training.
      const EPOCHS = 5;
      const appId = await createRepeated(
        'stock-price-prediction',
        'Repeats example',
        { model_type: 'Classical', training_model_method: 'LSTM', epochs: EPOCHS, repeats: 2 },
        ['qubits', 'quantum_device'],
      );
      const { page, errors } = await runToVisualization(appId, 'stock');
      const summary = page.getByTestId('repeats-summary');
      await summary.waitFor();
      expect(await summary.locator('h4').textContent()).toBe('Repeated over 2 seeds (42 to 43)');
      const rmse = await summary.locator('tr[data-metric="rmse"]').textContent();
      expect(rmse).toMatch(/±/);
      const bands = summary.getByTestId('loss-band');
      expect(await bands.count()).toBe(2);
      for (let i = 0; i < 2; i++) {
        const points = (await bands.nth(i).getAttribute('points'))!.split(' ');
        expect(points).toHaveLength(2 * EPOCHS); // the upper edge, then the lower edge back
      }
      await summary.scrollIntoViewIfNeeded();
      await shot(page, 'visualization');

      // A curve that is not a loss: the forecast's predicted line, the mean of the two seeds' with its
      // band, when the seeds' forecasts differ (their RMSE does); a seed that kept the untrained model
      // forecasts persistence, and two such seeds agree: then no band. The actual prices are the same
      // for both seeds and stay a plain line.
      const forecast = chart(page, /^Actual vs predicted/);
      const rmseCell = await summary.locator('tr[data-metric="rmse"] td').first().textContent();
      const rmseSd = Number(/± (\S+)$/.exec(rmseCell!)![1]);
      if (rmseSd > 0) {
        await expectBand(forecast, 'predicted');
        expect(await forecast.getAttribute('data-bands')).toBe('1');
      } else {
        await forecast.locator('.apexcharts-line-series').first().waitFor();
        expect(await forecast.getAttribute('data-bands')).toBeNull();
      }
      console.log(`stock forecast: RMSE sd over the seeds ${rmseSd}`);
      expect(await forecast.locator(`.apexcharts-line-series ${seriesGroup('actual')}`).count()).toBe(1);
      await expectBand(chart(page, /loss/i), 'train');
      await shot(page, 'stock-forecast-band', forecast);
      expect(errors).toEqual([]);
      await page.context().close();
    },
    RUN_DEADLINE_MS + 60_000,
  );

  it(
    'fraud VQC: the training loss with its band and the confusion matrix summed over the seeds',
    async () => {
      const appId = await createRepeated('fraud-detection', 'Repeated fraud', {
        optimizer_step: 10,
        repeats: 2,
      });
      const { page, errors } = await runToVisualization(appId, 'fraud');
      await page.getByTestId('repeats-summary').waitFor();
      const loss = chart(page, /training loss/i);
      await expectBand(loss, 'training loss');
      const matrix = chart(
        page,
        /^Variational Quantum Classifier: confusion matrix \(test part\) \(summed over 2 seeds, 42 to 43\)$/,
      );
      await matrix.locator('.apexcharts-heatmap-rect').first().waitFor({ timeout: 30_000 });
      await shot(page, 'fraud-loss-band', loss);
      await shot(page, 'fraud-confusion', matrix);
      expect(errors).toEqual([]);
      await page.context().close();
    },
    RUN_DEADLINE_MS + 60_000,
  );

  it(
    "brain tumor FCN: the accuracy history with its band and each seed's confusion matrix on demand",
    async () => {
      const appId = await createRepeated(
        'brain-tumor',
        'Repeated brain tumor',
        { model: 'FCN', epochs: 20, repeats: 2 },
        [],
        { training_range: { from_index: 1, to_index: 30 } }, // as brain-tumor.test's FCN training
      );
      const { page, errors } = await runToVisualization(appId, 'brain');
      const accuracy = chart(page, /^Accuracy vs Validation Accuracy$/);
      await expectBand(accuracy, 'Accuracy');
      await shot(page, 'brain-accuracy-band', accuracy);
      const matrix = chart(page, /^Confusion Matrix \(summed over 2 seeds, 42 to 43\)$/);
      await matrix.locator('.apexcharts-heatmap-rect').first().waitFor({ timeout: 30_000 });
      const labels = async (figure: Locator) =>
        (
          await figure.locator('.apexcharts-data-labels text, .apexcharts-datalabels text').allTextContents()
        ).join(' ');
      const cells = (text: string) => (text.match(/\d+/g) ?? []).map(Number);
      const total = (text: string) => cells(text).reduce((a, b) => a + b, 0);
      await expect.poll(async () => total(await labels(matrix))).toBeGreaterThan(0);
      const summed = await labels(matrix);
      await matrix.getByRole('combobox').selectOption('43');
      const seed = chart(page, /^Confusion Matrix \(seed 43\)$/);
      await seed.locator('.apexcharts-heatmap-rect').first().waitFor({ timeout: 30_000 });
      // One seed's matrix counts one test part; the summed one both seeds' (the same split size).
      await expect.poll(async () => total(await labels(seed))).toBe(total(summed) / 2);
      await shot(page, 'brain-confusion-seed', seed);
      expect(errors).toEqual([]);
      await page.context().close();
    },
    RUN_DEADLINE_MS + 60_000,
  );
});
