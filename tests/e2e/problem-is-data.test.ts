// A problem type is data, proved in Chromium against the built product (build first: npx vite build). The
// product is started on a copy of schemas/ (SCHEMAS_DIR) with no code change: (1) vehicle routing, unlisted
// in the repository, listed in the copy; (2) a problem that exists only in this test, a copy of fraud
// detection under another id, name and category with a small labelled-synthetic sample the test writes,
// run by the fraud handler its file names (job.worker). For each, a user signs in, creates the application
// from the Create Application dialog, picks its sample, configures the quantum model (small settings), saves,
// runs it to Completed and sees its metrics and charts. Screenshots: tests/artifacts/problem-data-*.png.

import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  adminSession,
  callApi,
  launchBrowser,
  signedInContext,
  startProduct,
  type RunningProduct,
} from './harness';
import {
  RUN_DEADLINE_MS,
  VIEWPORT,
  collectPageErrors,
  expectRunEnded,
  expectChartsDrawn,
  expectSelected,
  fieldInput,
  makeShotDirs,
  panel,
  runFromTopBar,
  toast,
  watchUntilCompleted,
} from './workspace-steps';

const REPO = path.resolve(import.meta.dirname, '../..');
const SHOTS = 'tests/artifacts';

const NEW_ID = 'insurance-claims';
const NEW_NAME = 'Insurance Claim Screening';
const NEW_CATEGORY = { id: 'insurance', name: 'Insurance', label: 'Insurance Applications', order: 4 };
const NEW_SAMPLE = {
  id: 'insurance-claims',
  label: 'Insurance Claims (synthetic)',
  file: 'insurance_claims_synthetic.csv',
};
const NEW_COLUMNS = ['claim_amount', 'policy_years', 'prior_claims', 'days_to_report', 'flagged'];
const NEW_ROWS = 160;
const SEED = 20261127;

type Json = Record<string, unknown>;

const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8')) as Json;
const writeJson = (file: string, value: unknown) =>
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** mulberry32: a small seeded generator, so the synthetic sample is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Synthetic claims, no real data: larger, late-reported claims on young policies with prior claims are
 * flagged more often (a noisy score), so a classifier has something to learn.
 */
function syntheticClaims(): string {
  const random = seeded(SEED);
  const lines = [NEW_COLUMNS.join(',')];
  for (let i = 0; i < NEW_ROWS; i++) {
    const amount = 200 + random() * 9800;
    const years = Math.floor(random() * 20);
    const prior = Math.floor(random() * 4);
    const days = Math.floor(random() * 60);
    const score = amount / 10000 + prior / 4 + days / 60 - years / 20 + (random() - 0.5) * 0.6;
    lines.push([amount.toFixed(2), years, prior, days, score > 0.9 ? 1 : 0].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The schemas directory the product is started on (SCHEMAS_DIR) and the samples beside it: a copy of
 * schemas/ with vehicle routing listed and the new problem (and its category) added; the repository's
 * samples linked, plus the new sample and its manifest entry.
 */
function contentCopy(): { root: string; schemasDir: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'qml-problem-data-'));
  const schemasDir = path.join(root, 'schemas');
  cpSync(path.join(REPO, 'schemas'), schemasDir, { recursive: true });

  const routing = path.join(schemasDir, 'problems', 'vehicle-routing.json');
  writeJson(routing, { ...readJson(routing), listed: true });

  const categoriesFile = path.join(schemasDir, 'categories.json');
  const categories = readJson(categoriesFile) as { categories: Json[] };
  writeJson(categoriesFile, { ...categories, categories: [...categories.categories, NEW_CATEGORY] });

  const fraud = readJson(path.join(schemasDir, 'problems', 'fraud-detection.json')) as {
    job: Json & { request: { method: string; path: string } };
    example: { appData: Json & { dataset: Json; preprocess: Json } };
    forms: Json;
  };
  const problem = {
    ...fraud,
    id: NEW_ID,
    name: NEW_NAME,
    category: NEW_CATEGORY.id,
    listed: true,
    order: 7,
    description:
      'Flag insurance claims for review with classical classifiers or a variational quantum classifier.',
    useCases: [
      'Flag claims for a second look',
      'Compare a quantum classifier with classical ones',
      'Measure recall on flagged claims',
      'Prototype a screening score',
      'Teach classification on a synthetic claims table',
    ],
    dataset: { ...(fraud as unknown as { dataset: Json }).dataset, samples: [NEW_SAMPLE] },
    job: {
      ...fraud.job,
      // No handler of its own: the fraud detection handler runs it, from this file's job body schema.
      worker: 'fraud-detection',
      request: { ...fraud.job.request, path: `/${NEW_ID}/execute-job/{userId}` },
    },
    example: {
      ...fraud.example,
      appName: `${NEW_NAME} Example`,
      description: 'Flag claims on a small synthetic table written by a test; no real claims.',
      context: { rowCount: NEW_ROWS, columns: NEW_COLUMNS },
      appData: {
        ...fraud.example.appData,
        dataset: {
          ...fraud.example.appData.dataset,
          sample: NEW_SAMPLE.id,
          name: NEW_SAMPLE.label,
          url: `samples/${NEW_SAMPLE.file}`,
        },
        preprocess: { ...fraud.example.appData.preprocess, column: 'flagged' },
      },
    },
  };
  writeJson(path.join(schemasDir, 'problems', `${NEW_ID}.json`), problem);

  const samplesDir = path.join(root, 'samples');
  mkdirSync(samplesDir);
  const shipped = path.join(REPO, 'samples');
  for (const name of readdirSync(shipped)) {
    if (name !== 'manifest.json') symlinkSync(path.join(shipped, name), path.join(samplesDir, name));
  }
  const csv = syntheticClaims();
  writeFileSync(path.join(samplesDir, NEW_SAMPLE.file), csv);
  const manifest = readJson(path.join(shipped, 'manifest.json')) as Json & { samples: Json[] };
  manifest.samples = [
    ...manifest.samples,
    {
      file: NEW_SAMPLE.file,
      label: NEW_SAMPLE.label,
      rows: NEW_ROWS,
      columns: NEW_COLUMNS,
      synthetic: true,
      source: `Synthetic: written by tests/e2e/problem-is-data.test.ts (seed ${SEED}); no real claims`,
      licence: 'MIT (generated by this project; no third-party data)',
      sha256: createHash('sha256').update(csv).digest('hex'),
      generator: { script: 'tests/e2e/problem-is-data.test.ts', seed: SEED },
    },
  ];
  writeJson(path.join(samplesDir, 'manifest.json'), manifest);
  return { root, schemasDir };
}

/** The chart types the problem's output definitions name (problems/<id>.json outputs -> outputs.json). */
function namedChartTypes(schemasDir: string, problemId: string): string[] {
  const problem = readJson(path.join(schemasDir, 'problems', `${problemId}.json`)) as { outputs: string[] };
  const { outputs } = readJson(path.join(schemasDir, 'outputs.json')) as {
    outputs: Record<string, { field: string; subType: string }>;
  };
  return problem.outputs.map((name) => outputs[name]!).flatMap((o) => (o.field === 'img' ? [o.subType] : []));
}

async function shot(page: Page, name: string, focus?: Locator): Promise<void> {
  if (focus) await focus.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SHOTS}/problem-data-${name}.png` });
}

/** Create Application on the dashboard: the dialog's category and problem, then the new workspace. */
async function createFromDialog(
  page: Page,
  product: RunningProduct,
  category: string,
  problemId: string,
  appName: string,
) {
  await page.goto(`${product.url}/profile`);
  await page.getByRole('button', { name: 'Create Application' }).click();
  const dialog = page.getByRole('dialog', { name: 'Select Application or Create New' });
  await dialog.getByLabel('Application Name').fill(appName);
  await dialog.getByLabel('Application Category').selectOption(category);
  await dialog.getByLabel('Application Problem').selectOption(problemId);
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  await page.waitForURL(/\/development\/[a-z-]+\/\d+\/[a-z0-9-]+$/);
  await page.getByRole('tab', { name: 'Dataset', selected: true }).waitFor();
  return Number(new URL(page.url()).pathname.split('/')[3]);
}

/** Dataset tab: the sample chosen (its preview drawn), then Next Step to the preprocess form. */
async function pickSample(page: Page, label: string): Promise<void> {
  await page.getByRole('button', { name: label }).click();
  await page.getByTestId('dataset-preview').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Next Step' }).click();
  await panel(page).getByRole('button', { name: 'Save Changes' }).waitFor();
}

/** Save Changes of the open form (enabled once it is valid). */
async function saveChanges(page: Page): Promise<void> {
  const save = panel(page).getByRole('button', { name: 'Save Changes' });
  await expect.poll(() => save.isEnabled(), { message: 'Save Changes is enabled' }).toBe(true);
  await save.click();
}

/** Saves the application from the Pipeline tab and returns its stored app_data. */
async function saveApplication(page: Page, product: RunningProduct, token: string, appId: number) {
  await expectSelected(page, 'Pipeline');
  await page.locator('.qs-flow-node').first().waitFor();
  await page.getByRole('button', { name: 'Save the Application' }).click();
  await toast(page, 'Application is saved successfully!').waitFor();
  const saved = await callApi<{
    data: { app_data: Json & { model_configurations: Json; preprocess: Json } };
  }>(product, `/applications/${appId}/detail`, { token });
  return saved.body.data.app_data;
}

let root: string;
let schemasDir: string;
let product: RunningProduct;
let browser: Browser;
let session: { token: string; id: number };

beforeAll(async () => {
  makeShotDirs();
  ({ root, schemasDir } = contentCopy());
  [product, browser] = await Promise.all([startProduct({ SCHEMAS_DIR: schemasDir }), launchBrowser()]);
  session = await adminSession(product);
});
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('a problem is data: the product started on a copy of schemas/', () => {
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  // An error boundary shows 'Something went wrong!' without a page error: the console says why.
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    context = await signedInContext(browser, product, session.token, { viewport: VIEWPORT });
    page = await context.newPage();
    errors = collectPageErrors(page);
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text().slice(0, 500));
    });
  });
  afterAll(async () => {
    await context?.close();
  });

  const onFailure = (name: string) =>
    onTestFailed(async () => {
      await shot(page, `${name}-failed`).catch(() => undefined);
      console.log(
        `page errors: ${JSON.stringify(errors)}\nconsole errors: ${JSON.stringify(consoleErrors.slice(-5))}\n` +
          product.output().slice(-3000),
      );
    });

  it(
    'vehicle routing, listed in the copy: sample, QAOA, save, run to Completed, the routes drawn',
    async () => {
      onFailure('routing');
      const appId = await createFromDialog(page, product, 'optimization', 'vehicle-routing', 'Depot Rounds');
      expect(page.url()).toMatch(/\/development\/vehicle-routing\/\d+\/depot-rounds$/);

      await pickSample(page, 'Delivery Locations (synthetic)');
      const coordinates = panel(page).locator('[data-field="coordinate_columns"]');
      for (const column of ['latitude', 'longitude'])
        await coordinates.getByRole('checkbox', { name: column, exact: true }).check();
      await panel(page)
        .locator('[data-field="demand_column"]')
        .getByRole('radio', { name: 'demand', exact: true })
        .check();
      await fieldInput(page, 'num_vehicles').fill('2');
      await shot(page, 'routing-preprocess');
      await saveChanges(page);

      await expectSelected(page, 'Model Configurations');
      await panel(page).locator('[data-field="model_type"] select').selectOption({ label: 'Quantum' });
      await panel(page).locator('[data-field="optimizer_type"] select').selectOption({ label: 'QAOA' });
      await fieldInput(page, 'optimizer_step').fill('10');
      await fieldInput(page, 'circuit_repetition').fill('1');
      await shot(page, 'routing-model');
      await saveChanges(page);
      const saved = await saveApplication(page, product, session.token, appId);
      expect(saved.preprocess).toMatchObject({
        coordinate_columns: ['latitude', 'longitude'],
        demand_column: 'demand',
        num_vehicles: 2,
      });
      expect(saved.model_configurations).toMatchObject({
        model_type: 'Quantum',
        optimizer_type: 'QAOA',
        optimizer_step: 10,
        circuit_repetition: 1,
      });

      const started = Date.now();
      const outputId = await runFromTopBar(page);
      await watchUntilCompleted(page, outputId);
      await expectRunEnded(page);
      console.log(
        `vehicle routing QAOA output ${outputId} completed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );

      await page.getByRole('tab', { name: 'Metrics' }).click();
      await page.getByTestId('metrics-table').waitFor();
      await shot(page, 'routing-metrics');

      const count = await expectChartsDrawn(page);
      const charts = page.getByTestId('output-charts');
      // The routes are drawn as a chart of a type the problem's output definitions name (line_graph: line).
      const named = namedChartTypes(schemasDir, 'vehicle-routing');
      expect(named).toEqual(['line']);
      const routes = charts.locator(`[data-chart-type="${named[0]}"]`, {
        has: page.locator('figcaption', { hasText: 'QAOA routes (longitude, latitude)' }),
      });
      await routes.waitFor();
      expect(await routes.locator('.apexcharts-series path').count()).toBeGreaterThan(0);
      console.log(`vehicle routing: ${count} charts drawn`);
      await shot(page, 'routing-routes', routes);
      expect(errors).toEqual([]);
    },
    RUN_DEADLINE_MS + 120_000,
  );

  it(
    'a problem file only this test has: its category, sample, quantum classifier, run to Completed, charts',
    async () => {
      onFailure('new-problem');
      // The browser has the new problem from the server (GET /api/schemas), not from its bundle.
      const listed = await callApi<{ data: { id: string; categoryName: string }[] }>(product, '/problems');
      expect(listed.body.data.find((p) => p.id === NEW_ID)).toMatchObject({
        categoryName: NEW_CATEGORY.name,
      });

      const appId = await createFromDialog(page, product, NEW_CATEGORY.id, NEW_ID, 'Claims Review');
      expect(page.url()).toMatch(/\/development\/insurance-claim-screening\/\d+\/claims-review$/);
      await page.getByRole('heading', { name: 'Sample Datasets' }).waitFor();

      await pickSample(page, NEW_SAMPLE.label);
      await panel(page)
        .locator('[data-field="column"]')
        .getByRole('radio', { name: 'flagged', exact: true })
        .check();
      await shot(page, 'new-problem-preprocess');
      await saveChanges(page);

      await expectSelected(page, 'Model Configurations');
      await panel(page).locator('[data-field="model_type"] select').selectOption({ label: 'Quantum' });
      await panel(page)
        .locator('[data-field="method"] select')
        .selectOption({ label: 'Variational Quantum Classifier' });
      await fieldInput(page, 'optimizer_step').fill('5');
      await fieldInput(page, 'circuit_repetition').fill('1');
      await shot(page, 'new-problem-model');
      await saveChanges(page);
      const saved = await saveApplication(page, product, session.token, appId);
      expect(saved.preprocess).toMatchObject({ column: 'flagged' });
      expect(saved.model_configurations).toMatchObject({
        method: 'Variational Quantum Classifier',
        optimizer_step: 5,
        circuit_repetition: 1,
      });

      const started = Date.now();
      const outputId = await runFromTopBar(page);
      await watchUntilCompleted(page, outputId);
      await expectRunEnded(page);
      console.log(
        `${NEW_ID} VQC output ${outputId} completed in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );

      await page.getByRole('tab', { name: 'Metrics' }).click();
      const metrics = page.getByTestId('metrics-table');
      await metrics.waitFor();
      expect(await metrics.locator('tbody th').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringMatching(/accuracy/i), expect.stringMatching(/recall/i)]),
      );
      await shot(page, 'new-problem-metrics');

      const count = await expectChartsDrawn(page);
      const charts = page.getByTestId('output-charts');
      // heatmap is the chart type this file's output definitions name: the confusion matrix.
      expect(namedChartTypes(schemasDir, NEW_ID)).toEqual(['heatmap']);
      const confusion = charts.locator('[data-chart-type="confusion_matrix"]').first();
      await confusion.waitFor();
      console.log(`${NEW_ID}: ${count} charts drawn`);
      await shot(page, 'new-problem-charts', confusion);

      // The worker ran it with the fraud handler under the new id, on the test's synthetic sample.
      const detail = await callApi<{ data: { status: string; output_logs: { message: string }[] } }>(
        product,
        `/application-outputs/${outputId}/detail`,
        { token: session.token },
      );
      expect(detail.body.data.status).toBe('Completed');
      expect(errors).toEqual([]);
    },
    RUN_DEADLINE_MS + 120_000,
  );
});
