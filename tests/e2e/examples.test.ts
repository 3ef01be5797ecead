// The Example Gallery and the landing's demo sections in Chromium against the built product (build
// first: npx vite build): a visitor's Start asks for a login and opens the Login dialog; Copy to
// clipboard writes the example's app_data; signed in, Start creates the application from the
// example and opens its workspace (brain tumor: /developmentbio), Copy to profile adds it to the
// user's applications. The demo data routes answer 404 until demo data is exported, and the landing
// says so. Screenshots at 1280 px go to tests/artifacts/. (dist/ is shared: a build by someone else
// during the run serves '404 Not Found' pages; run from a copy of the tree when others build.)

import { mkdirSync } from 'node:fs';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  adminSession,
  callApi,
  launchBrowser,
  signedInContext,
  sharedProduct,
  type RunningProduct,
} from './harness';

const ARTIFACTS = 'tests/artifacts';
const shot = (page: Page, name: string) =>
  page.screenshot({ path: `${ARTIFACTS}/examples-${name}.png`, fullPage: true });

interface Example {
  problem_id: string;
  problem_name: string;
  app_name: string;
  app_data: Record<string, unknown>;
}
interface Summary {
  id: number;
  app_name: string;
  app_problem_id: string;
}

const card = (page: Page, name: string) =>
  page.locator('article', { has: page.getByRole('heading', { name, exact: true }) });

describe('the Example Gallery', () => {
  let product: RunningProduct;
  let browser: Browser;
  let token: string;
  let adminId: number;
  let examples: Example[];
  const example = (problemId: string) => examples.find((e) => e.problem_id === problemId)!;
  const applications = async () =>
    (await callApi<{ data: Summary[] }>(product, `/applications/${adminId}/all`, { token })).body.data;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [product, browser] = await Promise.all([sharedProduct(), launchBrowser()]);
    ({ token, id: adminId } = await adminSession(product));
    examples = (await callApi<{ data: Example[] }>(product, '/examples')).body.data;
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  async function open(context: BrowserContext, name: string) {
    const page = await context.newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/examples-${name}-failed.png` }).catch(() => undefined);
    });
    return page;
  }

  it('logged out: the sections and cards; Start asks for a login and opens the Login dialog', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await open(context, 'visitor');
    await page.goto(`${product.url}/examples`);
    await page.getByRole('heading', { name: 'Financial Applications' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Bioinformatics Applications' }).isVisible()).toBe(true);
    expect(await page.locator('article').count()).toBe(examples.length);
    // The synthetic fraud sample says so on its card; the real stock sample does not.
    expect(
      await card(page, example('fraud-detection').app_name).getByText('Synthetic', { exact: true }).count(),
    ).toBe(1);
    expect(
      await card(page, example('stock-price-prediction').app_name)
        .getByText('Synthetic', { exact: true })
        .count(),
    ).toBe(0);
    await shot(page, 'gallery-1280');

    await page.getByPlaceholder('Search Examples...').fill('brain');
    expect(await page.locator('article').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Financial Applications' }).count()).toBe(0);
    await page.getByPlaceholder('Search Examples...').fill('');

    const stock = example('stock-price-prediction');
    await card(page, stock.app_name).getByRole('button', { name: 'Start' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: `Please login to Start ${stock.problem_name} Example` })
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Login' }).waitFor();
    await shot(page, 'visitor-start');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await card(page, stock.app_name).getByRole('button', { name: 'Copy to profile' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Please login to copy this example to your profile' })
      .waitFor();
    await context.close();
  });

  it("Copy to clipboard writes the example's app_data as JSON", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: product.url });
    const page = await open(context, 'clipboard');
    await page.goto(`${product.url}/examples`);
    const fraud = example('fraud-detection');
    await card(page, fraud.app_name)
      .getByRole('button', { name: /^Copy to clipboard/ })
      .waitFor();
    await card(page, fraud.app_name)
      .getByRole('button', { name: /^Copy to clipboard/ })
      .click();
    await page.getByRole('status').filter({ hasText: 'copied to the clipboard' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toEqual(fraud.app_data);
    await context.close();
  });

  it('signed in: Start opens the workspace of a new application with the example app_data; Copy to profile adds one', async () => {
    const context = await signedInContext(browser, product, token, {
      viewport: { width: 1280, height: 900 },
    });
    const page = await open(context, 'signed-in');
    await page.goto(`${product.url}/examples`);
    const stock = example('stock-price-prediction');
    await card(page, stock.app_name).getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/development\/stock-price-prediction\/\d+\/stock-price-prediction-example$/);
    const id = Number(new URL(page.url()).pathname.split('/')[3]);
    const detail = await callApi<{ data: Summary & { app_data: unknown } }>(
      product,
      `/applications/${id}/detail`,
      {
        token,
      },
    );
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({
      app_name: stock.app_name,
      app_problem_id: 'stock-price-prediction',
    });
    expect(detail.body.data.app_data).toEqual(stock.app_data);
    await page.getByRole('heading', { name: stock.app_name }).waitFor();
    await shot(page, 'started-workspace');

    // Brain tumor opens the brain tumor workspace.
    await page.goto(`${product.url}/examples`);
    const brain = example('brain-tumor');
    await card(page, brain.app_name).getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/developmentbio\/[a-z-]+\/\d+\/brain-tumor-example$/);

    // Copy to profile stays on the gallery, says so, and the application is in the user's list.
    await page.goto(`${product.url}/examples`);
    const before = await applications();
    const fraud = example('fraud-detection');
    await card(page, fraud.app_name).getByRole('button', { name: 'Copy to profile' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `"${fraud.app_name}" was copied to your profile.` })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe('/examples');
    const after = await applications();
    expect(after).toHaveLength(before.length + 1);
    expect(after[0]).toMatchObject({ app_name: fraud.app_name, app_problem_id: 'fraud-detection' });
    await shot(page, 'gallery-signed-in');
    await context.close();
  });

  it('with the example runs turned off the demo data routes answer 404 saying so, and the landing has no plots', async () => {
    const reply = await callApi<{ detail: string }>(product, '/demo-data/fraud-detection/compare');
    expect(reply.status).toBe(404);
    expect(reply.body.detail).toBe('The example runs are turned off on this server (DEMO_RESULTS=off).');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await open(context, 'landing-demo');
    await page.goto(product.url);
    const comparison = page.locator('#performance-comparison');
    await comparison.getByText(/^No plots available for .+\.$/).waitFor();
    expect(
      await comparison.getByRole('tab', { name: 'Confusion Matrix' }).getAttribute('aria-selected'),
    ).toBe('true');
    await page.locator('#result-interpretation').getByTestId('demo-notice').waitFor();
    await comparison.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/examples-landing-demo.png` });
    await context.close();
  });
});
