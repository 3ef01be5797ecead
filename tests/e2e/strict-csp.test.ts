// The web app under the server's own CSP, which has no 'unsafe-eval' (build first: npx vite build).
// Every form that validates in the browser does so without compiling code: the sign-in and
// registration dialogs, and the Dataset and Model Configurations forms of every listed problem's
// workspace, each given a bad value until its message shows. Chromium reports any blocked eval as a
// `securitypolicyviolation` event (recorded from the first script on) and as a console error; the
// test fails on either. Screenshot: tests/artifacts/strict-csp/<problem>.png.

import { mkdirSync } from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';

import { callApi, copyExample, signedInContext, workspaceUrl } from './harness';
import { VIEWPORT, collectPageErrors, openWorkspace, panel, tab, useSharedProduct } from './workspace-steps';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts/strict-csp');

const file = useSharedProduct();
beforeAll(() => {
  mkdirSync(ARTIFACTS, { recursive: true });
});

interface Watched {
  page: Page;
  /** CSP violations and console errors about the policy, as they happened. */
  problems: () => Promise<string[]>;
}

/** A page watched for CSP problems; signed in as the admin when `token` is given. */
async function watchedPage(token?: string): Promise<Watched> {
  const context = token
    ? await signedInContext(file.browser, file.product, token, { viewport: VIEWPORT })
    : await file.browser.newContext({ viewport: VIEWPORT });
  const violations: string[] = [];
  // Reported to Node as they happen, so a violation survives the page's next navigation.
  await context.exposeFunction('__reportCsp', (text: string) => void violations.push(text));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      (window as unknown as { __reportCsp: (text: string) => void }).__reportCsp(
        `${event.violatedDirective} blocked ${event.blockedURI} (${event.sourceFile}:${event.lineNumber})`,
      ),
    );
  });
  const page = await context.newPage();
  // A loaded machine (others' tests share the 2 cores) can take over 30 s to draw a workspace.
  page.setDefaultTimeout(60_000);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|unsafe-eval|EvalError/i.test(message.text()))
      consoleErrors.push(message.text());
  });
  const pageErrors = collectPageErrors(page);
  return {
    page,
    problems: () => Promise.resolve([...violations, ...consoleErrors, ...pageErrors]),
  };
}

describe('the web app under a CSP without unsafe-eval', () => {
  it('is what the server sends for the app', async () => {
    const reply = await fetch(file.product.url);
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
  });

  it('the Login and Register dialogs validate and show their messages', async () => {
    const { page, problems } = await watchedPage();
    await page.goto(file.product.url);
    await page.getByRole('button', { name: 'Login' }).click();
    const login = page.getByRole('dialog');
    await login.locator('input[name=email]').fill('not-an-email');
    await page.locator('form').getByRole('button', { name: 'Login' }).click();
    await login.getByText('Invalid email format', { exact: true }).waitFor();
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Register', exact: true }).click();
    const register = page.getByRole('dialog');
    await register.locator('input[name=name]').fill('ad');
    await register.locator('input[name=email]').fill('ada@');
    await register.locator('input[name=password]').fill('1234567');
    await register.getByRole('button', { name: 'Register', exact: true }).click();
    for (const message of [
      'Username must be at least 3 characters',
      'Invalid email format',
      'Password must be at least 8 characters',
    ])
      await register.getByText(message, { exact: true }).waitFor();
    expect(await problems()).toEqual([]);
    await page.context().close();
  }, 60_000);

  it("every listed problem's workspace forms validate and show a bad value's message", async () => {
    const problems = (await callApi<{ data: Array<{ id: string; name: string }> }>(file.product, '/problems'))
      .body.data;
    expect(problems.length).toBeGreaterThanOrEqual(5);
    const { session } = file;
    const watched = await watchedPage(session.token);
    const { page } = watched;
    const checked: string[] = [];
    for (const problem of problems) {
      const { id, example } = await copyExample(file.product, session, problem.id);
      await openWorkspace(page, workspaceUrl(file.product, problem.id, id, example.app_name));
      await tab(page, 'Model Configurations').click();
      const form = panel(page);
      const number = form.locator('input[type=number]:not([disabled])').first();
      await number.waitFor();
      const inputId = await number.getAttribute('id');
      await number.fill('-987654');
      await number.blur();
      // The innermost field around the input (a number may sit in a group, e.g. the splitter).
      const field = form.locator('.qs-field.has-error', { has: page.locator(`[id="${inputId}"]`) }).last();
      await field.waitFor({ timeout: 15_000 }).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(ARTIFACTS, `${problem.id}-failed.png`) });
        throw new Error(
          `${problem.id}: no message (${String(error)}); ${(await watched.problems()).join('; ')}`,
        );
      });
      const message = (await field.innerText()).trim();
      checked.push(`${problem.id}: ${message.replace(/\s+/g, ' ')}`);
      await page.screenshot({ path: path.join(ARTIFACTS, `${problem.id}.png`) });
      // Leave without saving: the unsaved-changes prompt is accepted.
      page.once('dialog', (dialog) => void dialog.accept());
    }
    console.log(`strict CSP: bad values refused in the browser\n  ${checked.join('\n  ')}`);
    expect(checked).toHaveLength(problems.length);
    expect(await watched.problems()).toEqual([]);
    await page.context().close();
  }, 300_000);
});
