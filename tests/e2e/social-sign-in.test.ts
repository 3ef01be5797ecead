// Social sign-in in Chromium against the built product (build first: npx vite build), with a local
// OpenID Connect provider standing in for Google (GOOGLE_ISSUER_URL points at it). The provider's
// verified e-mail counts as verified, approval still applies: the first sign-in creates the account
// and waits for the admin; after approval the same button signs the person in. A password account
// with the same verified e-mail is linked, not duplicated. Refusals: a foreign redirect_uri and a
// callback whose state the server never issued.

import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { adminToken, callApi, launchBrowser, startProduct, type RunningProduct } from './harness';
import {
  startGitHubStandIn,
  startOidcStandIn,
  type GitHubStandIn,
  type OidcStandIn,
} from '../../server/test-support/oauth-stand-ins';

const ARTIFACTS = 'tests/artifacts';
const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}/social-${name}.png` });

interface AdminUser {
  id: number;
  email: string;
}

describe('social sign-in through a local OpenID Connect stand-in for Google', () => {
  let provider: OidcStandIn;
  let github: GitHubStandIn;
  let product: RunningProduct;
  let browser: Browser;
  let admin: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const browserStarted = launchBrowser();
    browserStarted.catch(() => undefined); // awaited below, after the stand-ins and the product
    provider = await startOidcStandIn();
    github = await startGitHubStandIn();
    product = await startProduct({
      GOOGLE_CLIENT_ID: 'qml-studio-e2e',
      GOOGLE_CLIENT_SECRET: 'stand-in-secret',
      GOOGLE_ISSUER_URL: provider.issuer,
      GITHUB_CLIENT_ID: github.clientId,
      GITHUB_CLIENT_SECRET: github.clientSecret,
      GITHUB_URL: github.url,
      GITHUB_API_URL: github.apiUrl,
    });
    admin = await adminToken(product);
    browser = await browserStarted;
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
    await provider?.stop();
    await github?.stop();
  });

  const usersWithStatus = async (status: string) =>
    (
      await callApi<{ data: { users: AdminUser[] } }>(product, `/admin/users?status=${status}`, {
        token: admin,
      })
    ).body.data.users;

  /**
   * Opens the Login dialog and presses its Google button; the stand-in consents at once. Returns the
   * front end's /oauth2/redirect address the server sent the browser back to.
   */
  async function continueWith(page: Page, label: 'Google' | 'GitHub'): Promise<URL> {
    await page.goto(product.url);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    const back = page.waitForRequest((request) => new URL(request.url()).pathname === '/oauth2/redirect');
    await page
      .getByRole('dialog')
      .getByRole('link', { name: `Continue with ${label}` })
      .click();
    return new URL((await back).url());
  }

  /** A refused sign-in leaves the person signed out, wherever the front end takes them. */
  async function expectSignedOut(page: Page) {
    await page.getByRole('button', { name: 'Login', exact: true }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'))).toBeNull();
  }

  it('offers the configured providers in the Login and Register dialogs', async () => {
    const providers = await callApi<{ data: { providers: string[] } }>(product, '/oauth2/providers');
    expect([...providers.body.data.providers].sort()).toEqual(['github', 'google']);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(product.url);
    for (const dialogButton of ['Login', 'Register']) {
      await page.getByRole('button', { name: dialogButton, exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('link', { name: 'Continue with Google' }).waitFor();
      await dialog.getByRole('link', { name: 'Continue with GitHub' }).waitFor();
      await shot(page, `01-${dialogButton.toLowerCase()}-with-providers`);
      await page.keyboard.press('Escape');
      await page.goto(product.url);
    }
    await page.close();
  });

  it('creates a verified account that waits for approval, then signs in once approved', async () => {
    provider.signInAs({
      sub: 'google-7',
      email: 'grace@example.com',
      email_verified: true,
      name: 'Grace Hopper',
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();

    const refused = await continueWith(page, 'Google');
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: 'not_approved',
      email: 'grace@example.com',
    });
    // Like a refused password sign-in: the approval page, following the address the server named.
    await page.waitForURL('**/waiting-admin-approval');
    await page.getByText('grace@example.com').waitFor();
    await expectSignedOut(page);
    await shot(page, '02-waiting-admin-approval');
    // The request to the provider carried a state and a PKCE challenge.
    const sent = provider.authorizeRequests.at(-1)!;
    expect(sent.get('state')).toBeTruthy();
    expect(sent.get('code_challenge_method')).toBe('S256');
    expect(sent.get('redirect_uri')).toBe(`${product.url}/api/oauth2/callback/google`);

    const pending = await usersWithStatus('pending-approval');
    const grace = pending.find((user) => user.email === 'grace@example.com');
    expect(grace, 'the new account waits for approval with its e-mail verified').toBeDefined();
    expect(
      (await callApi(product, `/admin/users/${grace!.id}/approve`, { method: 'POST', token: admin })).status,
    ).toBe(200);

    const accepted = await continueWith(page, 'Google');
    expect(accepted.searchParams.get('token')).toBeTruthy();
    await page.getByRole('button', { name: 'Account menu' }).waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toBe('/');
    const token = await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'));
    const me = await callApi<{ data: { email: string; email_verified: boolean; roles: string[] } }>(
      product,
      '/users/me',
      { token },
    );
    expect(me.body.data).toMatchObject({ email: 'grace@example.com', email_verified: true, roles: ['user'] });
    await shot(page, '03-signed-in');
    await context.close();
  });

  it('links a provider identity to the password account with the same verified e-mail', async () => {
    const created = await callApi<{ data: { id: number } }>(product, '/users', {
      method: 'POST',
      body: { name: 'katherine', email: 'katherine@example.com', password: 'orbital1' },
    });
    expect(created.status).toBe(201);
    provider.signInAs({
      sub: 'google-9',
      email: 'katherine@example.com',
      email_verified: true,
      name: 'Katherine Johnson',
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const refused = await continueWith(page, 'Google');
    expect(refused.searchParams.get('error')).toBe('not_approved');
    await expectSignedOut(page);
    await page.close();
    const pending = await usersWithStatus('pending-approval');
    const matches = pending.filter((user) => user.email === 'katherine@example.com');
    expect(matches.map((user) => user.id)).toEqual([created.body.data.id]);
    // Whoever registered the address without proving it keeps no way in: the adopted account's
    // password is gone (a right password would be refused 403 for approval, not 401).
    const withOldPassword = await fetch(`${product.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: 'katherine@example.com',
        password: 'orbital1',
      }),
    });
    expect(withOldPassword.status).toBe(401);
  });

  it('signs a GitHub user in once approved, with the verified primary address', async () => {
    github.signInAs({
      id: 4242,
      login: 'hedy',
      name: 'Hedy Lamarr',
      email: 'hedy@example.com',
      verified: true,
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const refused = await continueWith(page, 'GitHub');
    expect(refused.searchParams.get('error')).toBe('not_approved');
    await expectSignedOut(page);
    expect(github.authorizeRequests.at(-1)?.get('state')).toBeTruthy();

    const hedy = (await usersWithStatus('pending-approval')).find(
      (user) => user.email === 'hedy@example.com',
    );
    expect(hedy, 'the GitHub account waits for approval with its e-mail verified').toBeDefined();
    await callApi(product, `/admin/users/${hedy!.id}/approve`, { method: 'POST', token: admin });

    await continueWith(page, 'GitHub');
    await page.getByRole('button', { name: 'Account menu' }).waitFor({ timeout: 15_000 });
    const token = await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'));
    const me = await callApi<{ data: { id: number; email: string } }>(product, '/users/me', { token });
    expect(me.body.data).toMatchObject({ id: hedy!.id, email: 'hedy@example.com' });
    await shot(page, '04-github-signed-in');
    await page.close();
  });

  it('refuses a GitHub identity whose address GitHub has not verified', async () => {
    github.signInAs({
      id: 5151,
      login: 'mallory',
      name: 'Mallory',
      email: 'grace@example.com',
      verified: false,
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const refused = await continueWith(page, 'GitHub');
    expect(refused.searchParams.get('error')).toBe('email_not_verified');
    expect(refused.searchParams.get('token')).toBeNull();
    await page.waitForURL(`${product.url}/`);
    await expectSignedOut(page);
    await page.close();
  });

  it('refuses a redirect_uri off PUBLIC_URL and a callback with a state it never issued', async () => {
    const foreign = await fetch(
      `${product.url}/api/oauth2/authorize/google?redirect_uri=${encodeURIComponent('https://evil.example/steal')}`,
      { redirect: 'manual' },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();

    const forged = await fetch(`${product.url}/api/oauth2/callback/google?code=anything&state=never-issued`, {
      redirect: 'manual',
    });
    const location = forged.headers.get('location') ?? '';
    expect(forged.status).toBe(302);
    expect(location).toMatch(/[?&]error=/);
    expect(location).not.toMatch(/[?&]token=/);
  });
});
