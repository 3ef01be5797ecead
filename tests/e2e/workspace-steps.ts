// Steps shared by the workspace end-to-end files (workspace.test.ts, workspace-examples.test.ts): what a
// user does in the workspace of issue #11, written against the accessible names and test ids of the
// wave's contract (tabs by role and name, outputs rows by data-output-id, charts inside output-charts).

import { mkdirSync } from 'node:fs';

import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, onTestFailed } from 'vitest';

import {
  adminSession,
  launchBrowser,
  sharedProduct,
  signedInContext,
  startProduct,
  type RunningProduct,
  type StartOptions,
} from './harness';

const SHOT_DIRS = [process.env.SHOTS_DIR, 'tests/artifacts'].filter((d): d is string => Boolean(d));

/** The viewport of every workspace screenshot (tall enough for the charts without fullPage). */
export const VIEWPORT = { width: 1280, height: 1100 };

/** The viewport of the run pages' screenshots (runs.test.ts, repeats.test.ts): the charts below the metrics. */
export const RUN_VIEWPORT = { width: 1280, height: 1500 };

/** Training on the 2-core CI machine: a deadline, not a speed check (bench:jobs measures speed). */
export const RUN_DEADLINE_MS = 150_000;

export function makeShotDirs(): void {
  for (const dir of SHOT_DIRS) mkdirSync(dir, { recursive: true });
}

/** What a file's tests share: its product, a browser and the admin's API session. */
export interface FileProduct {
  readonly product: RunningProduct;
  readonly browser: Browser;
  readonly session: { token: string; id: number };
}

/**
 * The set-up most files repeat, in the calling scope's beforeAll and afterAll: the screenshot
 * directories, the product (startProduct's env and options), a browser and the admin signed in through
 * the API; stopped after the scope's tests. Read the fields from the tests (they are set by beforeAll).
 */
export function useFileProduct(env: Record<string, string> = {}, options: StartOptions = {}): FileProduct {
  return useProduct(() => startProduct(env, options));
}

/** useFileProduct on the worker's shared product (harness.ts sharedProduct: read there who may share it). */
export function useSharedProduct(): FileProduct {
  return useProduct(sharedProduct);
}

function useProduct(start: () => Promise<RunningProduct>): FileProduct {
  let product: RunningProduct | undefined;
  let browser: Browser | undefined;
  let session: FileProduct['session'] | undefined;
  beforeAll(async () => {
    makeShotDirs();
    [product, browser] = await Promise.all([start(), launchBrowser()]);
    session = await adminSession(product);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined)
      throw new Error(`the file's ${name} is not started yet (useFileProduct's beforeAll)`);
    return value;
  };
  return {
    get product() {
      return started(product, 'product');
    },
    get browser() {
      return started(browser, 'browser');
    },
    get session() {
      return started(session, 'session');
    },
  };
}

/**
 * A new browser context (the workspace viewport by default) whose page is signed in as the admin (the
 * file's session in the app's storage: harness.ts signedInContext). The page is blank: go somewhere.
 */
export async function signedInPage(
  file: FileProduct,
  viewport: { width: number; height: number } = VIEWPORT,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await signedInContext(file.browser, file.product, file.session.token, { viewport });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  return { context, page, errors };
}

/**
 * tests/artifacts/workspace-{name}.png. Not fullPage: Chromium's full-page capture resizes the page to
 * 1x1 for a moment, which the mobile guard (under 768 px) answers by unmounting the app.
 */
export async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  for (const dir of SHOT_DIRS) await page.screenshot({ path: `${dir}/workspace-${name}.png` });
}

/** A workspace tab by its accessible name; the Outputs tab's name carries its count badge. */
export function tab(page: Page, name: 'Dataset' | 'Model Configurations' | 'Pipeline' | 'Outputs'): Locator {
  return page.getByRole('tab', { name: name === 'Outputs' ? /^Outputs/ : name, exact: name !== 'Outputs' });
}

export async function expectSelected(page: Page, name: Parameters<typeof tab>[1]): Promise<void> {
  await expect.poll(() => tab(page, name).getAttribute('aria-selected'), { timeout: 10_000 }).toBe('true');
}

/** The open tab's panel (one at a time). */
export const panel = (page: Page): Locator => page.getByRole('tabpanel').first();

/** A toast with this text (the ToastProvider's `.toast`). */
export const toast = (page: Page, text: string): Locator => page.locator('.toast').filter({ hasText: text });

/** An input of a schema field of the open panel (data-field is the field's path, e.g. 'epochs'). */
export const fieldInput = (page: Page, field: string): Locator =>
  panel(page).locator(`[data-field="${field}"] input`).first();

/** Loads the application's workspace and waits for its four tabs. */
export async function openWorkspace(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await tab(page, 'Dataset').waitFor();
  for (const name of ['Model Configurations', 'Pipeline', 'Outputs'] as const)
    await tab(page, name).waitFor();
}

/** Pipeline tab: the read-only diagram is drawn (React Flow nodes). */
export async function openPipeline(page: Page): Promise<void> {
  await tab(page, 'Pipeline').click();
  await expectSelected(page, 'Pipeline');
  await panel(page).getByText('Pipeline is Read Only').first().waitFor();
  await page.locator('.qs-flow-node').first().waitFor();
}

/**
 * Run the Application: the toast 'Application is running.' with 'Go to output tab', which opens the
 * Outputs tab; the running banner holds meanwhile. Returns the new output's id (the list's first row).
 */
export async function runFromTopBar(page: Page, knownIds: number[] = []): Promise<number> {
  await page.getByRole('button', { name: 'Run the Application' }).click();
  const running = toast(page, 'Application is running.');
  await running.waitFor({ timeout: 30_000 });
  expect(await page.getByTestId('running-banner').textContent()).toContain(
    'Application is running. Click on this to check the output for details.',
  );
  expect(await page.getByRole('button', { name: 'Run the Application' }).isDisabled()).toBe(true);
  await running.getByRole('button', { name: 'Go to output tab' }).click();
  await expectSelected(page, 'Outputs');
  const table = page.getByTestId('outputs-table');
  await table.waitFor();
  let id = 0;
  await expect
    .poll(
      async () => {
        const ids = await table
          .getByTestId('output-row')
          .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-output-id'))));
        id = ids.find((n) => n > 0 && !knownIds.includes(n)) ?? 0;
        return id;
      },
      { timeout: 30_000, message: 'a new output row' },
    )
    .toBeGreaterThan(0);
  return id;
}

export const outputRow = (page: Page, id: number): Locator =>
  page.locator(`[data-testid="output-row"][data-output-id="${id}"]`);

/** The output's status badge (status-badge.tsx: data-status is the job's status). */
export const statusBadge = (scope: Locator): Locator => scope.locator('[data-testid="job-status"]').first();

/**
 * View Details of the output, watches its live progress while it runs (a fast run may finish first), and
 * waits until it is Completed. Returns whether progress was seen live.
 */
export async function watchUntilCompleted(page: Page, id: number): Promise<boolean> {
  await outputRow(page, id).getByRole('button', { name: 'View Details' }).click();
  await page.getByRole('tab', { name: 'Metrics' }).waitFor();
  const status = () => statusBadge(panel(page)).getAttribute('data-status');
  let live = false;
  if ((await status()) !== 'Completed') {
    live = await page
      .getByTestId('live-progress')
      .waitFor({ timeout: 60_000 })
      .then(() => true)
      .catch(() => false);
  }
  await page
    .locator('[data-testid="job-status"][data-status="Completed"]')
    .first()
    .waitFor({ timeout: RUN_DEADLINE_MS });
  return live;
}

/**
 * Once the output shows Completed the run is over on the page too: the running banner is gone and Run the
 * Application is enabled within a second (a 2 s poll of its own left them up after the status changed).
 */
export async function expectRunEnded(page: Page): Promise<void> {
  const banner = page.getByTestId('running-banner');
  await expect.poll(() => banner.count(), { timeout: 1000, message: 'the running banner is gone' }).toBe(0);
  expect(await page.getByRole('button', { name: 'Run the Application' }).isEnabled()).toBe(true);
}

/** What a drawn ApexCharts chart has in its series: paths (line, bar, area) or cells (heatmap). */
const SERIES_MARKS = '.apexcharts-series path, .apexcharts-series rect';

/** Visualization: every chart the output has is drawn (ApexCharts SVG marks). Returns the chart count. */
export async function expectChartsDrawn(page: Page): Promise<number> {
  await page.getByRole('tab', { name: 'Visualization' }).click();
  const charts = page.getByTestId('output-charts');
  await charts.locator(SERIES_MARKS).first().waitFor({ timeout: 30_000 });
  const svgs = charts.locator('svg.apexcharts-svg');
  const count = await svgs.count();
  expect(count).toBeGreaterThan(0);
  for (let i = 0; i < count; i++) {
    // ApexCharts replaces a chart's SVG when its card changes width (the running banner going away when
    // the run ends does that), so the scroll is retried on a fresh element rather than failing on a detached one.
    await expect
      .poll(() =>
        svgs
          .nth(i)
          .scrollIntoViewIfNeeded({ timeout: 2_000 })
          .then(() => true)
          .catch(() => false),
      )
      .toBe(true);
    await expect
      .poll(() => svgs.nth(i).locator(SERIES_MARKS).count(), { message: `chart ${i + 1} is drawn` })
      .toBeGreaterThan(0);
  }
  return count;
}

/** Collects uncaught page errors (asserted empty at the end of a test). */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** An application's outputs list on its detail page (/applications/{id}): one row per output. */
const detailRows = (page: Page): Locator => page.locator('table.applications-table tbody tr');

/**
 * The output ids the detail page's list shows once it has loaded; an application without outputs shows
 * 'No outputs found' instead.
 */
async function listedOutputIds(page: Page): Promise<number[]> {
  let first = '';
  await expect
    .poll(
      async () => {
        first = (await detailRows(page).first().textContent()) ?? '';
        return first !== '' && first !== 'Loading…';
      },
      { timeout: 30_000, message: "the application's outputs are listed" },
    )
    .toBe(true);
  const ids = (await detailRows(page).locator('td:first-child').allTextContents()).map(Number);
  if (ids.some((id) => !(id > 0))) {
    expect(first).toBe('No outputs found');
    return [];
  }
  return ids;
}

/**
 * What repeats.test.ts and runs.test.ts do before they watch a run: a context signed in as the admin
 * (signedInPage), the application's detail page, Run, the toast 'Application is running.', and the new
 * output's row at the top of the list with its status badge. `whileRunning` is called right after the
 * toast (the run just started). Returns the page, its errors, that row and the output's id.
 */
export async function runFromWorkspace(
  file: FileProduct,
  appId: number,
  options: {
    viewport?: { width: number; height: number };
    /** Called when the test fails (a screenshot), registered before anything is done. */
    onFailure?: (page: Page) => Promise<void>;
    whileRunning?: (page: Page) => Promise<void>;
  } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[]; row: Locator; outputId: number }> {
  const { context, page, errors } = await signedInPage(file, options.viewport ?? RUN_VIEWPORT);
  const { onFailure } = options;
  if (onFailure) onTestFailed(() => onFailure(page).catch(() => undefined));
  await page.goto(`${file.product.url}/applications/${appId}`);
  const known = await listedOutputIds(page);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('Application is running.').waitFor();
  await options.whileRunning?.(page);
  let outputId = 0;
  await expect
    .poll(
      async () => {
        outputId = Number(await detailRows(page).first().locator('td').first().textContent());
        return outputId > 0 && !known.includes(outputId);
      },
      { timeout: 30_000, message: "the new output's row" },
    )
    .toBe(true);
  const row = detailRows(page).filter({
    has: page.locator('td:first-child', { hasText: new RegExp(`^${outputId}$`) }),
  });
  await row.getByTestId('job-status').waitFor();
  return { context, page, errors, row, outputId };
}
