// The workspace of each financial example in Chromium against the built product (build first: npx vite
// build): the example copied as the Examples page does, every tab shown and screenshotted
// (tests/artifacts/workspace-{problem}-{tab}.png, 1280 x 1100 px), one field changed to keep the run
// short, validation seen on the way, the change saved, the run watched to Completed and its charts drawn.

import { describe, expect, it, onTestFailed } from 'vitest';

import { callApi, copyExample, workspaceUrl } from './harness';
import {
  RUN_DEADLINE_MS,
  expectChartsDrawn,
  expectSelected,
  fieldInput,
  openPipeline,
  openWorkspace,
  panel,
  runFromTopBar,
  shot,
  signedInPage,
  tab,
  toast,
  useSharedProduct,
  watchUntilCompleted,
} from './workspace-steps';

/**
 * The field each example's run is shortened with (a schema field of its Model Configurations), a value
 * its schema refuses (and the message it shows) and the short value.
 */
const EXAMPLES: Array<{ problem: string; field: string; invalid: string; message: string; short: string }> = [
  {
    problem: 'stock-price-prediction',
    field: 'epochs',
    invalid: '200',
    message: 'Epochs must be less than or equal to 100',
    short: '5',
  },
  {
    problem: 'portfolio-optimization',
    field: 'optimizer_step',
    invalid: '0',
    message: 'Optimizer steps must be a positive integer',
    short: '15',
  },
  {
    problem: 'fraud-detection',
    field: 'optimizer_step',
    invalid: '0',
    message: 'Optimizer steps must be a positive integer',
    short: '15',
  },
  {
    problem: 'demand-forecasting',
    field: 'epochs',
    invalid: '3',
    message: 'Epochs must be greater than or equal to 5',
    short: '5',
  },
];

describe('the workspace of each financial example', () => {
  const file = useSharedProduct();

  for (const { problem, field, invalid, message, short } of EXAMPLES) {
    it(
      `${problem}: every tab, a shorter run saved, run to Completed with charts`,
      async () => {
        const started = Date.now();
        const { product, session } = file;
        const { id: appId, example } = await copyExample(product, session, problem);
        const { context, page, errors } = await signedInPage(file);
        onTestFailed(() => console.log(product.output().slice(-3000)));
        try {
          await openWorkspace(page, workspaceUrl(product, problem, appId, example.app_name));

          // Dataset: the saved sample is loaded again and previewed; nothing is incomplete.
          await expectSelected(page, 'Dataset');
          await page.getByTestId('dataset-preview').waitFor({ timeout: 30_000 });
          await page.getByText('Only showing 30 rows').waitFor();
          expect(await page.getByTestId('data-info').textContent()).toMatch(/rows × \d+ columns/);
          expect(await page.getByTestId('tab-marker-dataset').count()).toBe(0);
          expect(await page.getByTestId('tab-marker-model').count()).toBe(0);
          await shot(page, `${problem}-dataset`);
          await page.getByRole('button', { name: 'Next Step' }).click();
          await panel(page).getByRole('button', { name: 'Save Changes' }).waitFor();
          await shot(page, `${problem}-preprocess`);

          // Model Configurations: a refused value shows its message and holds Save; the short value saves.
          await tab(page, 'Model Configurations').click();
          await expectSelected(page, 'Model Configurations');
          const save = panel(page).getByRole('button', { name: 'Save Changes' });
          await save.waitFor();
          await shot(page, `${problem}-model`);
          await fieldInput(page, field).fill(invalid);
          await panel(page).getByText(message).waitFor();
          expect(await save.isDisabled()).toBe(true);
          await expect.poll(() => page.getByTestId('tab-marker-model').count()).toBe(1);
          await fieldInput(page, field).fill(short);
          await expect.poll(() => save.isEnabled()).toBe(true);
          await save.click();
          await expectSelected(page, 'Pipeline');

          await openPipeline(page);
          await shot(page, `${problem}-pipeline`);

          await tab(page, 'Outputs').click();
          await page.getByText('No outputs found').waitFor();
          await shot(page, `${problem}-outputs`);

          await page.getByRole('button', { name: 'Save the Application' }).click();
          await toast(page, 'Application is saved successfully!').waitFor();
          const saved = await callApi<{
            data: { app_data: { model_configurations: Record<string, unknown> } };
          }>(product, `/applications/${appId}/detail`, { token: session.token });
          expect(saved.body.data.app_data.model_configurations[field]).toBe(Number(short));

          const outputId = await runFromTopBar(page);
          await shot(page, `${problem}-outputs-running`);
          const runStarted = Date.now();
          const live = await watchUntilCompleted(page, outputId);
          const charts = await expectChartsDrawn(page);
          await shot(page, `${problem}-output-visualization`);
          await page.getByRole('tab', { name: 'Metrics' }).click();
          await page.getByTestId('metrics-table').waitFor();
          await shot(page, `${problem}-output-metrics`);
          console.log(
            `${problem}: run ${outputId} completed in ${((Date.now() - runStarted) / 1000).toFixed(1)} s ` +
              `(live progress seen: ${live}), ${charts} charts; test ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
          expect(errors).toEqual([]);
        } catch (error) {
          await shot(page, `${problem}-failed`).catch(() => undefined);
          throw error;
        } finally {
          await context.close();
        }
      },
      RUN_DEADLINE_MS + 150_000,
    );
  }
});
