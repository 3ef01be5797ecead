// The workspace of issue #11 in Chromium against the built product (build first: npx vite build). A new
// user takes an EMPTY stock application to a completed run with charts using only the browser: the
// Dataset tab's empty state, a non-URL refused, the Pipeline tab blocked while incomplete, a sample
// chosen (preview, data info), the splitter's row limit, Save Changes moving on, the Model
// Configurations tab, the read-only Pipeline, Save, Run with its toast and banner, the output watched
// live to Completed with metrics beside the baseline, charts and result logs. Then a second run is
// stopped (Manual Stop) and the unsaved-changes prompt guards leaving. Screenshots:
// tests/artifacts/workspace-stock-blank-*.png (1280 x 1100 px).

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  adminSession,
  callApi,
  copyExample,
  createBlankApplication,
  launchBrowser,
  signedInContext,
  sharedProduct,
  workspaceUrl,
  type RunningProduct,
} from './harness';
import {
  RUN_DEADLINE_MS,
  VIEWPORT,
  collectPageErrors,
  expectChartsDrawn,
  expectSelected,
  fieldInput,
  makeShotDirs,
  openWorkspace,
  outputRow,
  panel,
  runFromTopBar,
  shot,
  statusBadge,
  tab,
  toast,
  watchUntilCompleted,
} from './workspace-steps';

const PROBLEM = 'stock-price-prediction';
const APP_NAME = 'My Stock Forecast';
const SAMPLE = 'Apple and Google stock price';
const SAMPLE_ROWS = 5398;

const LEAVE_PROMPT = 'Be sure to save application before leaving. Are you sure you want to leave?';

interface SavedApp {
  data: {
    app_data: {
      dataset?: { url?: string; kind?: string };
      preprocess?: { splitter?: { from_index: number; to_index: number }; training_features?: string[] };
      model_configurations?: { model_type?: string; epochs?: number };
    };
  };
}

let product: RunningProduct;
let browser: Browser;
let session: { token: string; id: number };

// One product and one browser for the file (the CI machine has 2 cores).
beforeAll(async () => {
  makeShotDirs();
  [product, browser] = await Promise.all([sharedProduct(), launchBrowser()]);
  session = await adminSession(product);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

describe('the workspace, from an empty application to a completed run', () => {
  let context: BrowserContext;
  let page: Page;
  let appId: number;
  let url: string;
  let errors: string[];

  beforeAll(async () => {
    appId = await createBlankApplication(product, session, PROBLEM, APP_NAME);
    url = workspaceUrl(product, PROBLEM, appId, APP_NAME);
    context = await signedInContext(browser, product, session.token, { viewport: VIEWPORT });
    page = await context.newPage();
    errors = collectPageErrors(page);
  });
  afterAll(async () => {
    await context?.close();
  });

  const onFailure = (name: string) =>
    onTestFailed(async () => {
      await shot(page, `stock-blank-${name}-failed`).catch(() => undefined);
      console.log(product.output().slice(-3000));
    });

  it('opens the empty application: no data info, both markers, Pipeline blocked, a non-URL refused', async () => {
    onFailure('empty');
    await openWorkspace(page, url);
    await expectSelected(page, 'Dataset');
    await page.getByRole('heading', { name: 'Upload Datasets' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Sample Datasets' }).isVisible()).toBe(true);
    expect(await page.getByText('Drag and drop dataset components here...').isVisible()).toBe(true);
    await page.getByText('No data info to show. Please upload your dataset.').waitFor();
    expect(await page.getByTestId('tab-marker-dataset').count()).toBe(1);
    expect(await page.getByTestId('tab-marker-model').count()).toBe(1);
    await shot(page, 'stock-blank-dataset-empty');

    // The Pipeline tab is blocked until the Dataset and Configurations tabs are complete.
    await tab(page, 'Pipeline').click();
    const blocked = page
      .getByRole('alert')
      .filter({ hasText: 'Please fill the required fields in the Dataset and Configurations tabs.' });
    await blocked.waitFor();
    await shot(page, 'stock-blank-pipeline-blocked');
    expect(await tab(page, 'Pipeline').getAttribute('aria-selected')).toBe('false');
    await expectSelected(page, 'Dataset');
    // ... for 2 to 3 seconds (spec section 2).
    await blocked.waitFor({ state: 'detached', timeout: 6_000 });
    // What to fill stays under the tabs: 'Fill missing at 1' (the dataset comes first).
    expect(await page.getByRole('button', { name: 'Fill missing at 1' }).isVisible()).toBe(true);

    // URL linking refuses what is not a URL.
    await page.getByLabel('Dataset URL').fill('not a url');
    await page.getByRole('button', { name: 'Link URL' }).click();
    await page.getByText('Invalid URL. Please link to your CSV file URL.').waitFor();
    await shot(page, 'stock-blank-invalid-url');
    await page.getByLabel('Dataset URL').fill('');
  });

  it('chooses a sample: preview of 30 rows, data info, then the splitter limit and Save Changes', async () => {
    onFailure('dataset');
    await page.getByRole('button', { name: SAMPLE }).click();
    const preview = page.getByTestId('dataset-preview');
    await preview.waitFor({ timeout: 30_000 });
    await page.getByText('Only showing 30 rows').waitFor();
    expect(await preview.locator('tbody tr').count()).toBe(30);
    expect(await preview.locator('thead th').allTextContents()).toEqual(
      expect.arrayContaining(['Date', 'Open', 'Close']),
    );
    expect(await page.getByTestId('data-info').textContent()).toMatch(/5,?398 rows × 8 columns/);
    expect(await page.getByText('No data info to show. Please upload your dataset.').count()).toBe(0);
    expect(await page.getByTestId('dataset-type').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Remove' }).isVisible()).toBe(true);
    await shot(page, 'stock-blank-dataset-sample');

    await page.getByRole('button', { name: 'Next Step' }).click();
    const save = panel(page).getByRole('button', { name: 'Save Changes' });
    await save.waitFor();
    expect(await panel(page).getByRole('button', { name: 'Previous' }).isVisible()).toBe(true);
    const training = panel(page).locator('[data-field="training_features"]');
    for (const feature of ['Close', 'Open'])
      await training.getByRole('checkbox', { name: feature, exact: true }).check();
    const prediction = panel(page).locator('[data-field="prediction_features"]');
    await prediction.getByRole('checkbox', { name: 'Close', exact: true }).check();

    // The splitter cannot go past the dataset's rows; Save Changes waits for a valid range.
    const splitter = panel(page).locator('[data-field="splitter"]');
    await splitter.getByLabel('From Index').fill('1');
    await splitter.getByLabel('To Index').fill(String(SAMPLE_ROWS + 1000));
    await panel(page).getByText(`To Index cannot exceed ${SAMPLE_ROWS}`).waitFor();
    expect(await save.isDisabled()).toBe(true);
    await shot(page, 'stock-blank-preprocess-error');
    await splitter.getByLabel('To Index').fill('100');
    await panel(page).getByText(`To Index cannot exceed ${SAMPLE_ROWS}`).waitFor({ state: 'detached' });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await shot(page, 'stock-blank-preprocess');
    await save.click();

    // Saved into the workspace: the tab moves on, the Dataset marker goes.
    await expectSelected(page, 'Model Configurations');
    await expect.poll(() => page.getByTestId('tab-marker-dataset').count()).toBe(0);
    expect(await page.getByTestId('tab-marker-model').count()).toBe(1);
  });

  it('configures the model, shows the read-only pipeline and saves the application', async () => {
    onFailure('model');
    await panel(page).locator('[data-field="model_type"] select').selectOption({ label: 'Classical' });
    await fieldInput(page, 'epochs').fill('3');
    await panel(page).getByText('Epochs must be greater than or equal to 5').waitFor();
    expect(await panel(page).getByRole('button', { name: 'Save Changes' }).isDisabled()).toBe(true);
    await fieldInput(page, 'epochs').fill('5');
    await shot(page, 'stock-blank-model');
    await panel(page).getByRole('button', { name: 'Save Changes' }).click();

    // Saving the configuration moves to the Pipeline tab; both markers are gone.
    await expectSelected(page, 'Pipeline');
    await panel(page).getByText('Pipeline is Read Only').first().waitFor();
    await page.locator('.qs-flow-node').first().waitFor();
    expect(await page.getByTestId('tab-marker-dataset').count()).toBe(0);
    expect(await page.getByTestId('tab-marker-model').count()).toBe(0);
    await shot(page, 'stock-blank-pipeline');

    await page.getByRole('button', { name: 'Save the Application' }).click();
    await toast(page, 'Application is saved successfully!').waitFor();
    const saved = await callApi<SavedApp>(product, `/applications/${appId}/detail`, { token: session.token });
    expect(saved.body.data.app_data.dataset?.url).toMatch(/apple_google_stock\.csv$/);
    expect(saved.body.data.app_data.preprocess?.splitter).toEqual({ from_index: 1, to_index: 100 });
    expect(saved.body.data.app_data.preprocess?.training_features).toEqual(['Close', 'Open']);
    expect(saved.body.data.app_data.model_configurations).toMatchObject({
      model_type: 'Classical',
      epochs: 5,
    });
  });

  it(
    'runs it: toast, banner, the output live then Completed, metrics beside the baseline, charts, logs',
    async () => {
      onFailure('run');
      const id = await runFromTopBar(page);
      await shot(page, 'stock-blank-outputs-running');
      const live = await watchUntilCompleted(page, id);
      console.log(`stock blank run ${id}: live progress seen: ${live}`);

      await page.getByRole('tab', { name: 'Metrics' }).click();
      const metrics = page.getByTestId('metrics-table');
      await metrics.waitFor();
      // metric, this model, the baseline
      expect(await metrics.locator('thead th').count()).toBe(3);
      expect(await metrics.locator('tbody th').allTextContents()).toEqual(
        expect.arrayContaining(['MSE', 'RMSE', 'MAE']),
      );
      await shot(page, 'stock-blank-output-metrics');

      const charts = await expectChartsDrawn(page);
      expect(charts).toBeGreaterThanOrEqual(3);
      await shot(page, 'stock-blank-output-visualization');

      await page.getByRole('tab', { name: 'Result logs' }).click();
      await expect.poll(() => page.getByTestId('result-logs').innerText()).toContain('Completed');
      await shot(page, 'stock-blank-output-logs');

      await page.getByRole('button', { name: 'All Outputs' }).click();
      await page.getByTestId('outputs-table').waitFor();
      expect(await statusBadge(outputRow(page, id)).getAttribute('data-status')).toBe('Completed');
      expect(await page.getByTestId('outputs-count').textContent()).toBe('1');
      await shot(page, 'stock-blank-outputs');
      expect(errors).toEqual([]);
    },
    RUN_DEADLINE_MS + 120_000,
  );

  it('opens the saved application again on its first tab, its dataset loaded again', async () => {
    onFailure('reopen');
    await openWorkspace(page, url);
    await expectSelected(page, 'Dataset');
    await page.getByTestId('dataset-preview').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('data-info').textContent()).toMatch(/5,?398 rows × 8 columns/);
    expect(await page.getByTestId('tab-marker-dataset').count()).toBe(0);
    expect(await page.getByTestId('tab-marker-model').count()).toBe(0);
    expect(await page.getByTestId('outputs-count').textContent()).toBe('1');
  });
});

describe('the stock example in the workspace: stopping a run, leaving with unsaved changes', () => {
  let context: BrowserContext;
  let page: Page;
  let appId: number;
  let url: string;

  beforeAll(async () => {
    const copied = await copyExample(product, session, PROBLEM);
    appId = copied.id;
    url = workspaceUrl(product, PROBLEM, appId, copied.example.app_name);
    context = await signedInContext(browser, product, session.token, { viewport: VIEWPORT });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });

  const onFailure = (name: string) =>
    onTestFailed(async () => {
      await shot(page, `stock-example-${name}-failed`).catch(() => undefined);
      console.log(product.output().slice(-3000));
    });

  it('stops a run: Manual Stop', async () => {
    onFailure('stop');
    await openWorkspace(page, url);
    // A run long enough to stop: 2000 rows and the most epochs.
    await page.getByRole('button', { name: 'Next Step' }).click();
    await panel(page).locator('[data-field="splitter"]').getByLabel('To Index').fill('2000');
    await panel(page).getByRole('button', { name: 'Save Changes' }).click();
    await expectSelected(page, 'Model Configurations');
    await fieldInput(page, 'epochs').fill('100');
    await panel(page).getByRole('button', { name: 'Save Changes' }).click();
    await expectSelected(page, 'Pipeline');
    const id = await runFromTopBar(page);
    const row = outputRow(page, id);
    // Stop from the list's row, or from the output's detail where the list has none.
    if ((await row.getByRole('button', { name: 'Stop' }).count()) === 0)
      await row.getByRole('button', { name: 'View Details' }).click();
    await page.getByRole('button', { name: 'Stop' }).first().click();
    await shot(page, 'stock-example-stop-confirm');
    await page.getByRole('button', { name: 'Yes, stop' }).click();
    await page
      .locator('[data-testid="job-status"][data-status="Manual Stop"]')
      .first()
      .waitFor({ timeout: 30_000 });
    await shot(page, 'stock-example-stopped');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
  });

  it('asks before leaving with unsaved changes, stays on dismiss, and lets go once saved', async () => {
    onFailure('leave');
    await openWorkspace(page, url);
    await tab(page, 'Model Configurations').click();
    await fieldInput(page, 'epochs').fill('7');
    const prompts: string[] = [];
    const onDialog = (dialog: { message(): string; dismiss(): Promise<void> }) => {
      prompts.push(dialog.message());
      void dialog.dismiss();
    };
    page.on('dialog', onDialog);
    try {
      await page.getByRole('link', { name: 'Dashboard' }).click();
      await expect.poll(() => prompts).toEqual([LEAVE_PROMPT]);
      expect(new URL(page.url()).pathname).toBe(new URL(url).pathname);
      await tab(page, 'Model Configurations').waitFor();

      await panel(page).getByRole('button', { name: 'Save Changes' }).click();
      await page.getByRole('button', { name: 'Save the Application' }).click();
      await toast(page, 'Application is saved successfully!').waitFor();
      await page.getByRole('link', { name: 'Dashboard' }).click();
      await page.waitForURL((u) => !u.pathname.startsWith('/development/'));
      expect(prompts).toEqual([LEAVE_PROMPT]);
    } finally {
      page.off('dialog', onDialog);
    }
    const saved = await callApi<SavedApp>(product, `/applications/${appId}/detail`, { token: session.token });
    expect(saved.body.data.app_data.model_configurations?.epochs).toBe(7);
  });
});
