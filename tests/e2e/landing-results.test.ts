// The landing page from real results on a new install, in Chromium against the built product
// (build first: npx vite build) with DEMO_RESULTS=on: the first start queues the example runs, the
// landing says 'Loading plots...' until they end, then the Performance Comparison shows each run's
// Training Data, Training and Test Losses and Confusion Matrix and the Result Interpretation the
// analysis engine's report in both registers, every number the one the demo data API serves.
// Screenshots of each tab of each example go to tests/artifacts/landing-results-*.png. How long the
// runs take from the start is printed (measured here, not asserted: the deadline is generous).

import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { callApi, launchBrowser, startProduct, type RunningProduct } from './harness';

const ARTIFACTS = 'tests/artifacts';
const DEADLINE_MS = 15 * 60_000;

interface Output {
  id: number;
  status: string;
  error: string | null;
  model_type: string | null;
  confusion_matrix: number[][] | null;
  losses: { train: number[]; test: number[] } | null;
  training_data: Record<string, unknown> | null;
  interpretation: { technical: string; non_technical: string } | null;
}
interface Compare {
  data: { outputs: Output[] };
}

/** The first sentence-like line of a report that the page shows as its own paragraph or item. */
const shownLine = (markdown: string) =>
  markdown
    .split('\n')
    .map((line) => line.replace(/^\s*[-*]\s+/, '').trim())
    .find((line) => line && !line.startsWith('#') && !line.includes('**'))!;

describe('the landing page from real results', () => {
  let product: RunningProduct;
  let browser: Browser;
  let started: number;
  let problems: { problem_id: string; problem_name: string }[];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    started = Date.now();
    [product, browser] = await Promise.all([
      // The migrated database template (harness.ts), as every other file: the example runs are queued at
      // the first start with DEMO_RESULTS on, which this is (the template was made with them off and has no
      // demo_results row). A database created and migrated here cost about 5 CPU-s more and proved nothing
      // of the landing page (the global setup makes the template by such a start).
      startProduct({ DEMO_RESULTS: 'on' }),
      launchBrowser(),
    ]);
    problems = (await callApi<{ data: typeof problems }>(product, '/examples')).body.data;
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  const section = (page: Page, id: string) => page.locator(`#${id}`);

  async function pick(page: Page, select: string, problemId: string) {
    await page.locator(select).selectOption(problemId);
  }

  /**
   * An example whose run is still under way, the one likely to end last (queued rather than running,
   * then the latest queued): a run about to end may end before the page's first answer.
   */
  async function lastUnderWay(): Promise<string | undefined> {
    const underWay: { problemId: string; queued: boolean; id: number }[] = [];
    for (const { problem_id } of problems) {
      const output = (await callApi<Compare>(product, `/demo-data/${problem_id}/compare`)).body.data
        ?.outputs[0];
      if (output && ['queued', 'running'].includes(output.status))
        underWay.push({ problemId: problem_id, queued: output.status === 'queued', id: output.id });
    }
    underWay.sort((a, b) => Number(a.queued) - Number(b.queued) || a.id - b.id);
    return underWay.at(-1)?.problemId;
  }

  it(
    'shows Loading plots... first, then every example run in each tab and both registers',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // What happened to the page, said when the test fails: a run once found both sections back on their
      // first example mid-test (the page drawn again), without a trace of why.
      const events: string[] = [];
      const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) events.push(`${at()} navigated to ${frame.url()}`);
      });
      page.on('crash', () => events.push(`${at()} the page crashed`));
      page.on('pageerror', (error) => events.push(`${at()} page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          events.push(`${at()} console ${message.type()}: ${message.text()}`);
      });
      onTestFailed(async () => {
        console.log(`the page's events:\n${events.join('\n') || '(none)'}`);
        await page.screenshot({ path: `${ARTIFACTS}/landing-results-failed.png`, fullPage: true });
      });
      await page.goto(product.url);
      const comparison = section(page, 'performance-comparison');
      // The runs were queued at start: an example whose run is still queued or running says so (the
      // quick ones may have ended by the time the page is open).
      const waiting = await lastUnderWay();
      expect(waiting, 'every example run ended before the page was open').toBeDefined();
      await pick(page, '#comparison-problem', waiting!);
      await comparison.getByText('Loading plots...').first().waitFor();
      await comparison.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${ARTIFACTS}/landing-results-loading.png` });

      // Until every run has ended (the page polls; here the API says when).
      const ended: Record<string, number> = {};
      for (;;) {
        for (const { problem_id } of problems) {
          if (ended[problem_id]) continue;
          const reply = await callApi<Compare>(product, `/demo-data/${problem_id}/compare`);
          const output = reply.body.data?.outputs[0];
          if (output && !['queued', 'running'].includes(output.status)) ended[problem_id] = Date.now();
        }
        if (Object.keys(ended).length === problems.length) break;
        if (Date.now() - started > DEADLINE_MS)
          throw new Error(`runs still under way: ${JSON.stringify(ended)}`);
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
      const seconds = (at: number) => ((at - started) / 1000).toFixed(0);
      console.log(
        `landing example runs ended, seconds after the server was started: ${problems
          .map((p) => `${p.problem_id} ${seconds(ended[p.problem_id]!)}`)
          .join(', ')}; all ${seconds(Math.max(...Object.values(ended)))}`,
      );

      const interpretation = section(page, 'result-interpretation');
      for (const { problem_id, problem_name } of problems) {
        const { body } = await callApi<Compare>(product, `/demo-data/${problem_id}/compare`);
        const output = body.data.outputs[0]!;
        expect(output.status, `${problem_id}: ${output.error}`).toBe('Completed');
        await pick(page, '#comparison-problem', problem_id);
        const card = comparison.locator('.demo-output');
        await card.locator('h3', { hasText: `(output ${output.id})` }).waitFor();

        await comparison.getByRole('tab', { name: 'Training Data' }).click();
        await expectTrainingData(card, output);
        await comparison.screenshot({ path: `${ARTIFACTS}/landing-results-${problem_id}-training-data.png` });

        await comparison.getByRole('tab', { name: 'Training and Test Losses' }).click();
        if (output.losses && output.losses.train.length > 0) {
          await card.getByRole('img', { name: /training and test loss per epoch/ }).waitFor();
        } else {
          await card.getByText('No Training History').waitFor();
        }
        await comparison.screenshot({ path: `${ARTIFACTS}/landing-results-${problem_id}-losses.png` });

        await comparison.getByRole('tab', { name: 'Confusion Matrix' }).click();
        if (output.confusion_matrix) {
          await expect
            .poll(() => card.locator('table.demo-confusion tbody td').allTextContents())
            .toEqual(output.confusion_matrix.flat().map(String));
        } else {
          await card.getByText('No Data Available').waitFor();
        }
        await comparison.screenshot({ path: `${ARTIFACTS}/landing-results-${problem_id}-confusion.png` });

        await pick(page, '#interpretation-problem', problem_id);
        for (const [button, register] of [
          ['Non-technical', 'non_technical'],
          ['Technical', 'technical'],
        ] as const) {
          await interpretation.getByRole('button', { name: button, exact: true }).click();
          const line = shownLine(output.interpretation![register]);
          await interpretation.getByText(line, { exact: true }).first().waitFor();
          await settled(interpretation);
          await interpretation.screenshot({
            path: `${ARTIFACTS}/landing-results-${problem_id}-${register.replace('_', '-')}.png`,
          });
        }
        expect(await page.getByText(`No plots available for ${problem_name}.`).count()).toBe(0);
      }
      await page.close();
    },
    DEADLINE_MS + 120_000,
  );
});

/**
 * Waits until the element's box holds still between two reads: a screenshot taken while the page
 * above it is still laying out (a register switch, a poll's answer) captured the wrong area.
 */
async function settled(locator: Locator) {
  let before = JSON.stringify(await locator.boundingBox());
  for (let tries = 0; tries < 50; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = JSON.stringify(await locator.boundingBox());
    if (now === before) return;
    before = now;
  }
}

async function expectTrainingData(card: Locator, output: Output) {
  if (!output.training_data || Object.keys(output.training_data).length === 0) {
    await card.getByText('No Data Available').waitFor();
    return;
  }
  // The tab's table is drawn after the click: wait for its rows (reading them at once found none).
  await expect
    .poll(() => card.locator('table.demo-table tbody th').allTextContents())
    .toEqual(Object.keys(output.training_data).map((key) => key.replaceAll('_', ' ')));
}
