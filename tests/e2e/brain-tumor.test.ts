// Issue #13 in Chromium against the built product (build first: npx vite build): a new brain tumor
// application taken through the whole bioinformatics flow with only the browser. Train sub-tab: the
// synthetic sample dragged onto the drop zone, its Image Data / Tumor Border / Tumor Mask tables and the
// slice thumbnail, the training range 1..30, Next Step. Model Configurations: the fastest classical model
// (FCN), 20 epochs, saved, run to Completed. Predict sub-tab: a frame of Chromium's fake camera (a colour
// pattern) refused as not an MRI; an example image; qmodel refused while no quantum training exists;
// densenet121 (the latest classical training) -> 'Prediction: {class}' and a Prediction row in Outputs.
// A second, quantum training (QCNN, 4 qubits, depth 1), then both trainings selected and compared side by
// side. The example application opens on Predict. Screenshots:
// tests/artifacts/brain-{train,predict,outputs,detail,compare}.png (1280 x 1100 px).

import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  CHROMIUM_ARGS,
  adminSession,
  callApi,
  copyExample,
  createBlankApplication,
  signedInContext,
  sharedProduct,
  workspaceUrl,
  type RunningProduct,
} from './harness';
import {
  RUN_DEADLINE_MS,
  VIEWPORT,
  collectPageErrors,
  expectSelected,
  fieldInput,
  makeShotDirs,
  openWorkspace,
  outputRow,
  panel,
  runFromTopBar,
  tab,
  toast,
} from './workspace-steps';

const PROBLEM = 'brain-tumor';
const APP_NAME = 'My Tumor Classifier';
const SAMPLE = 'Sample Dataset 1 (2020-2024) (synthetic)';
const SAMPLE_SLICES = 3064;
const RANGE = { from: 1, to: 30 };
const CLASSES = ['meningioma', 'glioma', 'pituitary'];
const EXAMPLE = 'Example 3: glioma (synthetic)';
/**
 * Deadlines for what a cold Python worker does while the user waits (reading the 45 MB sample, a
 * prediction), not speed checks: under a loaded CI machine with another worker training beside it the
 * first read of the sample took over 60 s.
 */
const WORKER_DEADLINE_MS = 150_000;
/** The test timeout of a test that waits for the worker once or twice. */
const WORKER_TEST_MS = 2 * WORKER_DEADLINE_MS + 60_000;

interface SavedApp {
  data: {
    app_data: {
      dataset?: { file?: string; sample?: string; training_range?: { from_index: number; to_index: number } };
      model_configurations?: Record<string, unknown>;
    };
  };
}

interface OutputSummary {
  id: number;
  status: string;
  result_type?: string | null;
  trained_model_type?: string | null;
}

/** tests/artifacts/brain-{name}.png with `focus` (when given) in the middle of the viewport. */
async function shot(page: Page, name: string, focus?: Locator): Promise<void> {
  if (focus) await focus.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `tests/artifacts/brain-${name}.png` });
}

let product: RunningProduct;
let browser: Browser;
let session: { token: string; id: number };

beforeAll(async () => {
  makeShotDirs();
  [product, browser] = await Promise.all([
    sharedProduct(),
    // Chromium's fake camera (a moving colour test pattern, allowed without a prompt) for 'Use webcam':
    // a Chromium of its own, not the run's shared one.
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    }),
  ]);
  session = await adminSession(product);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

describe('brain tumor: train on the synthetic sample, predict an example, compare two trainings', () => {
  let context: BrowserContext;
  let page: Page;
  let appId: number;
  let errors: string[];
  const trainings: number[] = [];

  beforeAll(async () => {
    appId = await createBlankApplication(product, session, PROBLEM, APP_NAME);
    context = await signedInContext(browser, product, session.token, {
      viewport: VIEWPORT,
      permissions: ['camera'],
    });
    page = await context.newPage();
    errors = collectPageErrors(page);
  });
  afterAll(async () => {
    await context?.close();
  });

  const onFailure = (name: string) =>
    onTestFailed(async () => {
      await shot(page, `${name}-failed`).catch(() => undefined);
      console.log(product.output().slice(-3000));
    });

  const outputs = async () =>
    (
      await callApi<{ data: OutputSummary[] }>(product, `/application-outputs/${appId}/all`, {
        token: session.token,
      })
    ).body.data;

  /** Saves the form (Save Changes, then the application) and runs it; returns the Completed output's id. */
  async function saveAndTrain(): Promise<number> {
    const save = panel(page).getByRole('button', { name: 'Save Changes' });
    await expect.poll(() => save.isEnabled()).toBe(true);
    await save.click();
    await expectSelected(page, 'Pipeline');
    await page.getByRole('button', { name: 'Save the Application' }).click();
    await toast(page, 'Application is saved successfully!').waitFor();
    const started = Date.now();
    const id = await runFromTopBar(page, trainings);
    await outputRow(page, id)
      .locator('[data-testid="job-status"][data-status="Completed"]')
      .waitFor({ timeout: RUN_DEADLINE_MS });
    console.log(`training ${id} completed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    trainings.push(id);
    return id;
  }

  it(
    'a new application opens Train: the sample dragged in shows its tables and thumbnail; range 1..30',
    async () => {
      onFailure('train');
      await openWorkspace(page, workspaceUrl(product, PROBLEM, appId, APP_NAME));
      await expectSelected(page, 'Dataset');
      const train = page.getByRole('tab', { name: 'Train Brain Tumor' });
      expect(await train.getAttribute('aria-selected')).toBe('true');
      expect(await page.getByRole('tab', { name: 'Predict Brain Tumor' }).isVisible()).toBe(true);
      const dropZone = page.getByText('Drag and drop a .mat file or the sample dataset here...');
      await dropZone.waitFor();
      expect(await page.getByLabel('Upload .mat file').count()).toBe(1);

      // Next Step without a dataset says what is missing and stays.
      await page.getByRole('button', { name: 'Next Step' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /\.mat file/ })
        .first()
        .waitFor();
      await expectSelected(page, 'Dataset');

      // The sample button dragged onto the drop zone.
      await page.getByRole('button', { name: SAMPLE }).dragTo(page.getByTestId('mat-dropzone'));
      const imageData = page.locator('table', { has: page.locator('caption', { hasText: 'Image Data' }) });
      await imageData.waitFor({ timeout: WORKER_DEADLINE_MS });
      expect(await page.getByTestId('mat-facts').textContent()).toContain(`${SAMPLE_SLICES} slices`);
      expect(await imageData.locator('tbody tr').count()).toBeGreaterThan(0);
      const firstRow = await imageData.locator('tbody tr').first().locator('td').allTextContents();
      expect(firstRow[0]).toBe('1');
      expect(CLASSES.some((name) => firstRow[1]!.includes(name))).toBe(true);
      for (const caption of ['Tumor Border', 'Tumor Mask']) {
        const table = page.locator('table', { has: page.locator('caption', { hasText: caption }) });
        await table.waitFor();
        expect(await table.locator('tbody tr').count(), `${caption} rows`).toBeGreaterThan(0);
      }
      const thumbnail = page.getByAltText('Slice 1 with its tumor mask');
      await thumbnail.waitFor();
      // The thumbnail is a decoded image, not a broken one.
      expect(await thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(256);
      expect(
        await page
          .getByRole('note')
          .filter({ hasText: /synthetic/i })
          .count(),
      ).toBeGreaterThan(0);

      // The training range: a range past the sample is refused, 1..30 is kept.
      await page.getByLabel('From Index').fill(String(RANGE.from));
      await page.getByLabel('To Index').fill(String(SAMPLE_SLICES + 1));
      await page
        .getByText(/^To Index must (not exceed|be less than or equal to) 3064$/)
        .first()
        .waitFor();
      await page.getByLabel('To Index').fill(String(RANGE.to));
      await page
        .getByText(/^To Index must (not exceed|be less than or equal to) 3064$/)
        .first()
        .waitFor({ state: 'detached' });
      await shot(page, 'train');
      await page.getByRole('button', { name: 'Next Step' }).click();
      await expectSelected(page, 'Model Configurations');
    },
    WORKER_TEST_MS,
  );

  it(
    'trains FCN (classical, 20 epochs) on slices 1..30 to Completed',
    async () => {
      onFailure('model');
      await panel(page).locator('[data-field="modelType"] select').selectOption({ label: 'Classical' });
      await panel(page).locator('[data-field="model"] select').selectOption({ label: 'FCN' });
      await fieldInput(page, 'epochs').fill('25');
      await panel(page).getByText('Epochs must be a multiple of 10').waitFor();
      await fieldInput(page, 'epochs').fill('20');
      await panel(page).getByText('Epochs must be a multiple of 10').waitFor({ state: 'detached' });
      const id = await saveAndTrain();

      const saved = await callApi<SavedApp>(product, `/applications/${appId}/detail`, {
        token: session.token,
      });
      expect(saved.body.data.app_data.dataset?.training_range).toEqual({
        from_index: RANGE.from,
        to_index: RANGE.to,
      });
      const listed = (await outputs()).find((o) => o.id === id);
      expect(listed).toMatchObject({
        status: 'Completed',
        result_type: 'Training',
        trained_model_type: 'FCN',
      });
      // The run trained on the chosen range (the spec's client always sent 1..10: issue #13 says not to copy it).
      const detail = await callApi<{ data: { dataset: { rows_used: number | null; synthetic: boolean } } }>(
        product,
        `/application-outputs/${id}/detail`,
        { token: session.token },
      );
      expect(detail.body.data.dataset).toMatchObject({
        rows_used: RANGE.to - RANGE.from + 1,
        synthetic: true,
      });
      const row = await outputRow(page, id).locator('td').allTextContents();
      expect(row).toEqual(expect.arrayContaining(['FCN', 'Training']));
    },
    RUN_DEADLINE_MS + 60_000,
  );

  it("a webcam frame that is not an MRI (the fake camera's colour pattern) is refused in the spec's words", async () => {
    onFailure('webcam');
    await tab(page, 'Dataset').click();
    await page.getByRole('tab', { name: 'Predict Brain Tumor' }).click();
    await page.getByRole('button', { name: 'Use webcam' }).click();
    const preview = page.getByLabel('Webcam preview');
    await preview.waitFor();
    await expect
      .poll(() => preview.evaluate((video: HTMLVideoElement) => video.videoWidth), { timeout: 15_000 })
      .toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Capture' }).click();
    await page.getByRole('alert').filter({ hasText: "This doesn't look like a valid MRI image." }).waitFor();
    await page.getByRole('button', { name: 'Predict Now' }).click();
    await expect
      .poll(() =>
        page.getByRole('alert').filter({ hasText: "This doesn't look like a valid MRI image." }).count(),
      )
      .toBeGreaterThan(0);
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: /^Prediction: / })
        .count(),
    ).toBe(0);
  });

  it(
    'predicts an example image with densenet121: the class, its probabilities and the link at once; Outputs has a Prediction row',
    async () => {
      onFailure('predict');
      for (let n = 1; n <= 6; n++)
        expect(
          await page
            .getByRole('button', { name: new RegExp(`^Example ${n}: [a-z]+ \\(synthetic\\)$`) })
            .count(),
        ).toBe(1);
      expect(await page.getByLabel('Upload MRI image').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Use webcam' }).isVisible()).toBe(true);
      expect(await page.getByLabel('Image URL').isVisible()).toBe(true);
      await page.getByRole('button', { name: EXAMPLE }).click();
      // No quantum training yet: qmodel is refused in plain words.
      await page.getByRole('radio', { name: 'qmodel' }).check();
      await page.getByRole('button', { name: 'Predict Now' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'No trained quantum model for this application yet. Train one first.' })
        .waitFor({ timeout: WORKER_DEADLINE_MS });
      await page.getByRole('radio', { name: 'densenet121' }).check();
      const before = (await outputs()).map((o) => o.id);
      await page.getByRole('button', { name: 'Predict Now' }).click();

      // The answer shows at once where it was asked: the class, every class's probability and the link
      // to the output that records it; the workspace stays on the Dataset tab.
      const result = page.getByRole('status').filter({ hasText: /^Prediction: / });
      await result.waitFor({ timeout: WORKER_DEADLINE_MS });
      await shot(page, 'predict', result);
      const text = await result.locator('.bio-result-class').textContent();
      expect(CLASSES.map((c) => `Prediction: ${c}`)).toContain(text);
      expect(await result.getByRole('list', { name: 'Probabilities' }).getByRole('listitem').count()).toBe(
        CLASSES.length,
      );
      await expectSelected(page, 'Dataset');
      let predictionId = 0;
      await expect
        .poll(
          async () => {
            predictionId = (await outputs()).find((o) => !before.includes(o.id))?.id ?? 0;
            return predictionId;
          },
          { timeout: 30_000, message: 'a prediction output' },
        )
        .toBeGreaterThan(0);
      const link = result.getByRole('link', { name: `Open this prediction's output (#${predictionId})` });
      expect(await link.getAttribute('href')).toMatch(new RegExp(`/outputs/${predictionId}$`));
      await tab(page, 'Outputs').click();
      await expectSelected(page, 'Outputs');
      const row = outputRow(page, predictionId);
      await row.waitFor({ timeout: 15_000 });
      expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['Prediction']));
      expect(await row.getByRole('checkbox').isDisabled()).toBe(true);
      const listed = (await outputs()).find((o) => o.id === predictionId);
      expect(listed).toMatchObject({ status: 'Completed', result_type: 'Prediction' });

      // Its detail: the diagnosis names one of the three classes.
      await row.click();
      await page.getByRole('tab', { name: 'Diagnosis Summary' }).waitFor();
      expect(await page.getByRole('tab', { name: 'Detailed Insights' }).isVisible()).toBe(true);
      const diagnosis = (await panel(page).textContent()) ?? '';
      expect(CLASSES.some((c) => diagnosis.includes(c))).toBe(true);
      await page.getByRole('button', { name: 'All Outputs' }).click();
      await page.getByTestId('outputs-table').waitFor();
    },
    WORKER_TEST_MS,
  );

  it(
    'a quantum training (QCNN, 4 qubits) reaches Completed; its detail has Performance Analysis and Chart',
    async () => {
      onFailure('quantum');
      await tab(page, 'Model Configurations').click();
      await expectSelected(page, 'Model Configurations');
      await panel(page).locator('[data-field="modelType"] select').selectOption({ label: 'Quantum' });
      await panel(page).locator('[data-field="model"] select').selectOption({ label: 'QCNN' });
      await panel(page).locator('[data-field="numQubits"] select').selectOption({ label: '4' });
      await fieldInput(page, 'circuitDepth').fill('1');
      await fieldInput(page, 'epochs').fill('20');
      const id = await saveAndTrain();
      const listed = (await outputs()).find((o) => o.id === id);
      expect(listed).toMatchObject({
        status: 'Completed',
        result_type: 'Training',
        trained_model_type: 'QCNN',
      });
      await shot(page, 'outputs');

      await outputRow(page, id).click();
      const performance = page.getByRole('tab', { name: 'Performance Analysis' });
      await performance.waitFor();
      expect(await performance.getAttribute('aria-selected')).toBe('true');
      expect(
        await panel(page)
          .getByText(/accuracy/i)
          .count(),
      ).toBeGreaterThan(0);
      await page.getByRole('tab', { name: 'Chart' }).click();
      await page
        .locator('.apexcharts-series path, .apexcharts-series rect')
        .first()
        .waitFor({ timeout: 30_000 });
      await shot(page, 'detail');
      await page.getByRole('button', { name: 'All Outputs' }).click();
      await page.getByTestId('outputs-table').waitFor();
    },
    RUN_DEADLINE_MS + 60_000,
  );

  it('the two trainings selected: the comparison text, then both side by side in the Compare overlay', async () => {
    onFailure('compare');
    expect(trainings).toHaveLength(2);
    for (const id of trainings) await page.getByRole('checkbox', { name: `Select output ${id}` }).check();
    await page
      .getByRole('status')
      .filter({ hasText: 'You have selected 2 outputs for comparison.' })
      .waitFor();
    const compare = page.getByRole('button', { name: 'Compare Outputs' });
    expect(await compare.isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Analyze Output' }).isDisabled()).toBe(true);
    await compare.click();
    const overlay = page.getByRole('dialog');
    await overlay.waitFor();
    for (const id of trainings) await overlay.getByRole('region', { name: `Output ${id}` }).waitFor();
    for (const name of ['A+', 'A-', 'Print', 'Back to outputs'])
      expect(await overlay.getByRole('button', { name }).isVisible(), name).toBe(true);
    await shot(page, 'compare');
    await overlay.getByRole('button', { name: 'Back to outputs' }).click();
    await overlay.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
  });
});

describe('the brain tumor example', () => {
  it(
    'opens on Predict (it has a dataset); Train reloads its saved sample',
    async () => {
      const { id, example } = await copyExample(product, session, PROBLEM);
      const context = await signedInContext(browser, product, session.token, { viewport: VIEWPORT });
      const page = await context.newPage();
      try {
        await openWorkspace(page, workspaceUrl(product, PROBLEM, id, example.app_name));
        const predict = page.getByRole('tab', { name: 'Predict Brain Tumor' });
        await expect.poll(() => predict.getAttribute('aria-selected')).toBe('true');
        await page.getByRole('tab', { name: 'Train Brain Tumor' }).click();
        await page.locator('caption', { hasText: 'Image Data' }).waitFor({ timeout: WORKER_DEADLINE_MS });
        expect(await page.getByTestId('mat-facts').textContent()).toContain(`${SAMPLE_SLICES} slices`);
      } finally {
        await context.close();
      }
    },
    WORKER_TEST_MS,
  );
});
