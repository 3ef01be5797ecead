// The applications dashboard in Chromium against the built product (build first: npx vite build):
// the signed-in admin's /profile with applications made through the API and one made through the
// dialog 'Select Application or Create New'; search, sort, Show, grid, delete with its banner, the
// application detail and the workspace placeholder. Screenshots at 1280 px go to tests/artifacts/.

import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  adminSession,
  callApi,
  launchBrowser,
  signedInContext,
  startProduct,
  type RunningProduct,
} from './harness';

const ARTIFACTS = 'tests/artifacts';
const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}/applications-${name}.png` });

/** The Application ID cells of the shown rows, top to bottom. */
const shownIds = (page: Page) =>
  page.locator('table.applications-table tbody tr td:first-child').allTextContents();

describe('the applications dashboard', () => {
  let product: RunningProduct;
  let browser: Browser;
  let token: string;
  let adminId: number;
  const made: number[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
    ({ token, id: adminId } = await adminSession(product));
    // Eleven financial applications and one brain tumor application, made as the API makes them.
    const problems = ['stock-price-prediction', 'fraud-detection', 'portfolio-optimization'];
    for (let i = 1; i <= 12; i++) {
      const reply = await callApi<{ data: { id: number } }>(product, '/applications/create-blank', {
        method: 'POST',
        token,
        body: {
          app_name: i === 12 ? 'Glioma scans' : `Forecast ${String(i).padStart(2, '0')}`,
          user_id: adminId,
          app_problem_id: i === 12 ? 'brain-tumor' : problems[i % 3],
          status: 'active',
        },
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      made.push(reply.body.data.id);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('creates from the dialog, searches, sorts, pages, shows a grid and deletes', async () => {
    const context = await signedInContext(browser, product, token, {
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/applications-failed.png` }).catch(() => undefined);
    });
    await page.goto(`${product.url}/profile`);
    await page.getByRole('heading', { name: 'My Applications' }).waitFor();
    await page.locator('table.applications-table tbody tr').first().waitFor();

    // Default: financial tab, id descending, five a page, the brain tumor app only in its own tab.
    const financial = made.slice(0, 11).reverse();
    expect(await shownIds(page)).toEqual(financial.slice(0, 5).map(String));
    expect(await page.getByText('Glioma scans').count()).toBe(0);
    expect(await page.getByPlaceholder('Search Application by ID or Name').isVisible()).toBe(true);
    await shot(page, 'dashboard-list');

    // The dialog: the user's applications grouped, then Create New with its required fields.
    await page.getByRole('button', { name: 'Create Application' }).click();
    const dialog = page.getByRole('dialog', { name: 'Select Application or Create New' });
    await dialog.getByRole('option', { name: 'Financial' }).waitFor({ state: 'attached' });
    expect(await dialog.getByText('App problem: Brain Tumor').count()).toBe(1);
    expect(await dialog.getByRole('heading', { name: 'Financial Applications' }).isVisible()).toBe(true);
    await shot(page, 'create-dialog');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    expect(await dialog.getByText('This field is required').count()).toBe(3);
    expect(await dialog.getByText('Application name or problem ID is missing').isVisible()).toBe(true);
    await dialog.getByLabel('Application Name').fill('E2E Portfolio Mix');
    await dialog.getByLabel('Application Category').selectOption('financial');
    await dialog.getByLabel('Application Problem').selectOption('portfolio-optimization');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/development\/portfolio-optimization\/\d+\/e2e-portfolio-mix$/);
    const createdId = Number(page.url().split('/').at(-2));
    await page.getByRole('heading', { name: 'E2E Portfolio Mix' }).waitFor();
    // A new application opens its workspace on the Dataset tab, with nothing chosen yet.
    await page.getByRole('tab', { name: 'Dataset', selected: true }).waitFor();
    await page.getByText('No data info to show. Please upload your dataset.').waitFor();
    await shot(page, 'workspace-new-application');
    const stored = await callApi<{ data: { app_name: string; app_problem: { name: string } } }>(
      product,
      `/applications/${createdId}/detail`,
      { token },
    );
    expect(stored.body.data.app_name).toBe('E2E Portfolio Mix');
    expect(stored.body.data.app_problem.name).toBe('Portfolio Optimization');

    await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
    await page.locator('table.applications-table tbody tr').first().waitFor();
    expect((await shownIds(page))[0]).toBe(String(createdId));

    // Search by name (any case) and by id.
    const search = page.getByPlaceholder('Search Application by ID or Name');
    await search.fill('e2e portfolio');
    expect(await shownIds(page)).toEqual([String(createdId)]);
    await search.fill(String(made[3]));
    expect(await shownIds(page)).toContain(String(made[3]));
    await search.fill('nothing like this');
    expect(await page.getByText('No applications found').isVisible()).toBe(true);
    await search.fill('');

    // Sort by name ascending, then back to id ascending.
    await page.getByRole('button', { name: /^Application Name/ }).click();
    expect(await page.locator('tbody tr td:nth-child(3)').first().textContent()).toBe('E2E Portfolio Mix');
    await page.getByRole('button', { name: /^Application ID/ }).click();
    const firstById = await shownIds(page);
    const ascending = [...firstById].sort((a, b) => Number(a) - Number(b));
    expect(firstById).toEqual(ascending);
    await page.getByRole('button', { name: /^Application ID/ }).click();

    // Show 10, All; pagination First + window + Last.
    const pager = page.getByRole('navigation', { name: 'Pagination' });
    expect(await pager.getByRole('button').allTextContents()).toEqual(['First', '1', '2', '3', 'Last']);
    await pager.getByRole('button', { name: 'Last' }).click();
    expect(await shownIds(page)).toHaveLength(2);
    await page.getByLabel('Show').selectOption('10');
    expect(await shownIds(page)).toHaveLength(10);
    await page.getByLabel('Show').selectOption('All');
    expect(await shownIds(page)).toHaveLength(12);
    await page.getByLabel('Show').selectOption('5');

    // The brain tumor tab, then the grid view.
    await page.getByRole('tab', { name: 'Brain Tumor application' }).click();
    expect(await shownIds(page)).toEqual([String(made[11])]);
    await page.getByRole('tab', { name: 'Financial Applications' }).click();
    await page.getByRole('button', { name: 'Grid', exact: true }).click();
    await page.locator('.applications-grid').waitFor();
    expect(await page.locator('.application-card').count()).toBe(5);
    await shot(page, 'dashboard-grid');
    await page.getByRole('button', { name: 'List', exact: true }).click();

    // Delete: menu, confirm, overlay, banner that hides after 5 s; the application is gone.
    const victim = made[0];
    await page.getByLabel('Show').selectOption('All');
    await page.getByRole('button', { name: 'Actions for Forecast 01' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByRole('button', { name: 'No, cancel' }).click();
    expect(await confirm.count()).toBe(0);
    await page.getByRole('button', { name: 'Actions for Forecast 01' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await shot(page, 'delete-confirm');
    await confirm.getByRole('button', { name: "Yes, I'm sure" }).click();
    const banner = page.getByText('The Application has been successfully deleted.');
    await banner.waitFor();
    await shot(page, 'delete-banner');
    expect(await page.getByText('Forecast 01', { exact: true }).count()).toBe(0);
    const gone = await callApi(product, `/applications/${victim}/detail`, { token });
    expect(gone.status).toBe(404);
    await banner.waitFor({ state: 'detached', timeout: 7000 });
    expect(await shownIds(page)).toHaveLength(11);
    await context.close();
  });

  it('shows the application detail with its outputs, and sends unknown applications to /error/404', async () => {
    const context = await signedInContext(browser, product, token, {
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/applications-detail-failed.png` }).catch(() => undefined);
    });
    await page.goto(`${product.url}/profile`);
    await page.locator('table.applications-table tbody tr').first().click();
    await page.waitForURL(/\/applications\/\d+$/);
    await page.getByRole('heading', { name: 'Application Detail' }).waitFor();
    await page.getByText('No outputs found').waitFor();
    for (const column of ['Output Id', 'Status', 'Created Date', 'Completed', 'Actions'])
      expect(await page.getByRole('columnheader', { name: column }).isVisible(), column).toBe(true);
    await shot(page, 'detail');
    await page.getByRole('button', { name: /Apps/ }).click();
    await page.waitForURL(/\/profile$/);

    await page.goto(`${product.url}/applications/987654`);
    await page.waitForURL(/\/error\/404$/);
    await page.goto(`${product.url}/development/stock-price-prediction/987654/nothing`);
    await page.waitForURL(/\/error\/404$/);
    await context.close();
  });
});
