// Tracking in Chromium against the built product (build first: npx vite build): a visitor's page
// views and time on page reach the tables under the spec's storage names (client_id, session_data),
// a browser with Global Privacy Control or Do Not Track sends nothing and stores nothing, and the
// admin's analytics page shows the views, visitors, sessions, top pages and time on page with charts.
// Screenshot: tests/artifacts/analytics-page.png.

import { describe, expect, it } from 'vitest';
import { adminToken, callApi } from './harness';
import { signedInPage, useFileProduct } from './workspace-steps';

const ARTIFACTS = 'tests/artifacts';

interface AnalyticsReply {
  data: {
    totals: { views: number; visitors: number; sessions: number; median_seconds: number | null };
    top_pages: { page: string; views: number }[];
  };
}

describe('tracking and the analytics page', () => {
  const file = useFileProduct();

  const analytics = async () =>
    (
      await callApi<AnalyticsReply>(file.product, '/admin/analytics', {
        token: await adminToken(file.product),
      })
    ).body;

  it('records a visitor’s views and time, under the spec’s storage names', async () => {
    const context = await file.browser.newContext();
    const page = await context.newPage();
    const tracked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/track/')) tracked.push(new URL(r.url()).pathname);
    });
    await page.goto(file.product.url);
    await expect.poll(() => tracked.length).toBeGreaterThan(0);
    await page.goto(`${file.product.url}/examples`);
    await expect.poll(() => tracked.filter((p) => p.includes('/track/pageview/')).length).toBe(2);
    const storage = await page.evaluate(() => [
      localStorage.getItem('client_id'),
      localStorage.getItem('session_data'),
    ]);
    expect(storage[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(storage[1]!)).toMatchObject({
      session_id: expect.any(String),
      last_activity: expect.any(Number),
    });
    await context.close(); // leaving sends the last time report
    await expect
      .poll(async () => (await analytics()).data.totals.views, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(2);
    const { data } = await analytics();
    expect(data.totals.visitors).toBe(1);
    expect(data.top_pages.map((p) => p.page)).toEqual(expect.arrayContaining(['/', '/examples']));
    // Leaving each page sent its time (a beacon on leaving; the socket's reports come every 30 s).
    await expect
      .poll(async () => (await analytics()).data.totals.median_seconds, { timeout: 15_000 })
      .not.toBeNull();
  });

  it('sends and stores nothing for Global Privacy Control or Do Not Track', async () => {
    const before = (await analytics()).data.totals.views;
    for (const init of [
      () => Object.defineProperty(navigator, 'globalPrivacyControl', { get: () => true }),
      () => Object.defineProperty(navigator, 'doNotTrack', { get: () => '1' }),
    ]) {
      const context = await file.browser.newContext();
      await context.addInitScript(init);
      const page = await context.newPage();
      const tracked: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/track/') || r.url().endsWith('/api/ws')) tracked.push(r.url());
      });
      page.on('websocket', (ws) => {
        if (ws.url().endsWith('/api/ws')) tracked.push(ws.url());
      });
      await page.goto(file.product.url);
      await page.goto(`${file.product.url}/examples`);
      await page.waitForTimeout(2000);
      expect(tracked).toEqual([]);
      expect(await page.evaluate(() => localStorage.getItem('client_id'))).toBeNull();
      await context.close();
    }
    expect((await analytics()).data.totals.views).toBe(before);
  });

  it('shows the admin the analytics page with charts', async () => {
    const { context, page } = await signedInPage(file, { width: 1280, height: 1000 });
    await page.goto(`${file.product.url}/admin/analytics`);
    const totals = page.getByTestId('analytics-totals');
    await totals.waitFor();
    await expect.poll(() => totals.textContent()).toMatch(/Page views\d+/);
    await page.locator('.apexcharts-line-series').first().waitFor();
    await page.locator('.apexcharts-bar-series').first().waitFor();
    await expect.poll(() => page.getByTestId('time-on-page').textContent()).toContain('/');
    await page.screenshot({ path: `${ARTIFACTS}/analytics-page.png`, fullPage: true });
    // A range without visits: the page says so.
    await page.locator('input[name=from]').fill('2020-01-01');
    await page.locator('input[name=to]').fill('2020-01-31');
    await expect.poll(() => page.locator('.analytics-page').textContent()).toContain('No Data Available');
    await context.close();
  });
});
