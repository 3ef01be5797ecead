import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, launchBrowser, signedInContext, startProduct, type RunningProduct } from './harness';

/** The self-test job from the click to Completed: a deadline, not a speed check. */
const JOB_DEADLINE_MS = 120_000;

const MODES: { name: string; env: Record<string, string> }[] = [
  // A real worker runtime check at this start (no kept check taken, as on a fresh install): health's
  // `worker: ok` below is this Python's answer.
  { name: 'embedded default (PGlite, in-process queue)', env: { WORKER_CHECK_RECORD: 'off' } },
  { name: 'BullMQ on the local Redis', env: { REDIS_URL: 'redis://127.0.0.1:6379' } },
];

describe.each(MODES)('the quantum self-test in a real browser, $name', ({ env }) => {
  let product: RunningProduct;
  let browser: Browser;
  beforeAll(async () => {
    [product, browser] = await Promise.all([startProduct(env), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('serves the app shell, health and the OpenAPI document', async () => {
    // The server listens before its worker runtime check ends (health says 'not checked yet' with a 503
    // meanwhile): wait for the check as a readiness probe would, then every part must be ok.
    let health = await fetch(`${product.url}/api/health`);
    for (const deadline = Date.now() + JOB_DEADLINE_MS; health.status === 503 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      health = await fetch(`${product.url}/api/health`);
    }
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ database: 'ok', queue: 'ok', worker: 'ok' });
    const openapi = (await (await fetch(`${product.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/api/login', '/api/health', '/api/jobs/{id}']),
    );
    const page = await browser.newPage();
    await page.goto(`${product.url}/no/such/page`);
    // The page is a lazy chunk: wait for its text (isVisible alone does not wait, and lost the race once).
    const offline = page.getByText('Looks like our services are currently offline');
    await offline.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await offline.isVisible()).toBe(true);
    await page.close();
  });

  it('shows the spec messages for a bad login', async () => {
    const page = await browser.newPage();
    await page.goto(product.url);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.locator('form').getByRole('button', { name: 'Login' }).click();
    expect(await page.getByText('Email is required.').isVisible()).toBe(true);
    expect(await page.getByText('Password is required.').isVisible()).toBe(true);
    await page.fill('input[name=email]', product.admin.email);
    await page.fill('input[name=password]', 'wrong password');
    await page.locator('form').getByRole('button', { name: 'Login' }).click();
    // The dialog's own alert: the landing page behind it has live regions of its own (the stock demo).
    const refusal = page.getByRole('dialog', { name: 'Login' }).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe('Incorrect email or password');
    await page.close();
  });

  it(
    'runs the job end to end and shows the status changing live and the counts',
    async () => {
      const context = await signedInContext(browser, product, await adminToken(product));
      const page = await context.newPage();
      await page.goto(product.url);
      await page.getByRole('link', { name: 'Diagnostics' }).click();
      const seen = new Set<string>();
      const submittedAt = Date.now();
      await page.getByRole('button', { name: 'Run self-test' }).click();
      const status = page.getByTestId('job-status');
      // Watch the badge change: queued/running are shown as Ongoing before Completed. Until the job ends,
      // within a deadline: the job starts the worker's Python (WORKER_WARM=lazy), which took tens of
      // seconds on a loaded machine, longer than the 600 reads a fixed count allowed.
      for (const deadline = Date.now() + JOB_DEADLINE_MS; Date.now() < deadline;) {
        const value = (await status.getAttribute('data-status', { timeout: 5_000 }).catch(() => null)) ?? '';
        if (value) seen.add(value);
        if (value === 'Completed' || value === 'Failed') break;
        await page.waitForTimeout(50);
      }
      expect([...seen].at(-1)).toBe('Completed');
      expect(seen.has('running') || seen.has('queued')).toBe(true);
      await page.getByTestId('counts-chart').waitFor();
      await expect
        .poll(() => page.getByTestId('timeline').innerText())
        .toMatch(/queued[\s\S]*running[\s\S]*Completed/);

      // The counts the page shows are the stored ones: read them back through the API.
      const token = await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'));
      const jobs = (await (
        await fetch(`${product.url}/api/jobs`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        data: {
          jobs: {
            id: number;
            status: string;
            result: { counts: Record<string, number> };
            started_at: string;
            created_at: string;
          }[];
        };
      };
      const job = jobs.data.jobs[0]!;
      expect(job.status).toBe('Completed');
      const counts = job.result.counts;
      expect((counts['00'] ?? 0) + (counts['11'] ?? 0)).toBe(1024);
      expect(Math.abs((counts['00'] ?? 0) - (counts['11'] ?? 0))).toBeLessThan(160);
      const chartText = await page.getByTestId('counts-chart').innerText();
      expect(chartText).toContain(String(counts['00']));
      expect(chartText).toContain(String(counts['11']));
      const latency = new Date(job.started_at).getTime() - new Date(job.created_at).getTime();
      console.log(
        `submit-to-start latency: ${latency} ms (browser round trip ${Date.now() - submittedAt} ms)`,
      );
      await page.screenshot({
        path: `tests/artifacts/self-test-${env.REDIS_URL ? 'bullmq' : 'embedded'}.png`,
      });
      await context.close();
    },
    JOB_DEADLINE_MS + 60_000,
  );
});
