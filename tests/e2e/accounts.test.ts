// A new account from registration to a signed-in profile edit, in Chromium against the built product
// (build first: npx vite build), with the product's mail going to a real SMTP server in this test:
// register -> verification mail -> link -> /email-verified -> /waiting-admin-approval -> the admin
// approves in the console -> approval mail -> /approved-account -> login -> /profile -> profile edit
// with an avatar upload -> logout. Every page on the way is screenshotted into tests/artifacts/.

import { mkdirSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';

import {
  adminToken,
  callApi,
  launchBrowser,
  signedInContext,
  startProduct,
  startProductWithMail,
  type RunningProduct,
} from './harness';
import { pngImage } from './images';
import { linksIn, verificationLink, type MailSink } from './mail-sink';

const ARTIFACTS = 'tests/artifacts';
const shot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS}/accounts-${name}.png` });

/** Fills and sends the Login dialog (the caller waits for what follows). */
async function submitLogin(page: Page, product: RunningProduct, email: string, password: string) {
  await page.goto(product.url);
  await page.getByRole('button', { name: 'Login', exact: true }).click();
  const login = page.getByRole('dialog');
  await login.locator('input[name=email]').fill(email);
  await login.locator('input[name=password]').fill(password);
  await login.getByRole('button', { name: 'Login', exact: true }).click();
  return login;
}

interface Me {
  id: number;
  name: string;
  email: string;
  email_verified: boolean;
  is_approved: boolean;
  roles: string[];
  dob: string | null;
  image_url: string | null;
  provided_timezone: string | null;
  has_custom_ibmq_token: boolean;
}

describe('a new account, from registration to a profile edit, with mail over SMTP', () => {
  let sink: MailSink;
  let product: RunningProduct;
  let browser: Browser;
  const ada = { name: 'ada_lovelace', email: 'ada@example.com', password: 'analytical1' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [{ sink, product }, browser] = await Promise.all([startProductWithMail(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
    await sink?.stop();
  });

  it('walks the whole way a person does', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/accounts-failed.png` }).catch(() => undefined);
    });

    // Register: the spec's messages first, then a real registration.
    await page.goto(product.url);
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    const register = page.getByRole('dialog');
    await register.getByRole('button', { name: 'Register', exact: true }).click();
    for (const message of ['Username is required', 'Email is required', 'Password is required'])
      expect(await register.getByText(message, { exact: true }).isVisible(), message).toBe(true);
    await register.locator('input[name=name]').fill('ad');
    await register.locator('input[name=email]').fill('ada@');
    await register.locator('input[name=password]').fill('1234567');
    await register.getByRole('button', { name: 'Register', exact: true }).click();
    for (const message of [
      'Username must be at least 3 characters',
      'Invalid email format',
      'Password must be at least 8 characters',
    ])
      expect(await register.getByText(message, { exact: true }).isVisible(), message).toBe(true);
    await shot(page, '01-register-errors');
    await register.locator('input[name=name]').fill(ada.name);
    await register.locator('input[name=email]').fill(ada.email);
    await register.locator('input[name=password]').fill(ada.password);
    await register.getByRole('button', { name: 'Register', exact: true }).click();
    await page.waitForURL('**/pending-verify');
    // The mm:ss timer ticks once a second from the page's first render, which can come well after the
    // address changed on a loaded machine (a fixed 1.2 s wait from the address lost that race): wait
    // for the tick itself.
    const timer = page.getByLabel('Time waiting');
    await expect.poll(() => timer.textContent(), { timeout: 15_000 }).toMatch(/^00:0[1-9]$/);
    await shot(page, '02-pending-verify');
    // 'Send the link again' mails a new link, up to the per-address limit (3 resends an hour:
    // server/accounts/account-limits.ts), then says to wait.
    const resend = page.getByRole('button', { name: 'Send the link again' });
    const mailsToAda = () => sink.mails.filter((mail) => mail.to.includes(ada.email)).length;
    for (const expected of [2, 3, 4]) {
      await resend.click();
      await expect.poll(mailsToAda).toBe(expected);
    }
    await resend.click();
    await page.getByText(/^Too many verification e-mails. Please try again in \d+ minutes?\.$/).waitFor();
    expect(mailsToAda()).toBe(4);
    await shot(page, '02b-pending-verify-resend-limited');

    // Registering the same address again is a clear conflict (the page shows the server's detail).
    const again = await callApi<{ detail: string }>(product, '/users', {
      method: 'POST',
      body: { name: 'someone_else', email: ada.email, password: 'another-one-1' },
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('An account with this e-mail already exists.');

    // The verification mail arrives over SMTP; its link verifies once and lands on /email-verified.
    const link = await verificationLink(sink, ada.email);
    expect(new URL(link).origin).toBe(product.url);
    const before = await callApi<{ extra_data: { email_verified: boolean; is_approved: boolean } }>(
      product,
      `/users/approval-status?email=${encodeURIComponent(ada.email)}`,
    );
    expect(before.body.extra_data).toEqual({ email_verified: false, is_approved: false });
    await page.goto(link);
    await page.waitForURL('**/email-verified');
    await page.getByText('Email Verified').waitFor();
    await shot(page, '03-email-verified');
    // ... and after 5 s the page moves on to waiting for approval.
    await page.waitForURL('**/waiting-admin-approval', { timeout: 10_000 });
    await page.getByText('Email verified. Waiting for admin approval...').waitFor();
    await shot(page, '04-waiting-admin-approval');
    // A used link is refused.
    const reused = await fetch(link, { redirect: 'manual' });
    expect(reused.status).toBe(302);
    expect(reused.headers.get('location')).toBe(`${product.url}/email-verified?status=invalid`);

    // Not approved yet: the password is right but sign-in is refused and sends the person to wait.
    const early = await fetch(`${product.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: ada.email, password: ada.password }),
    });
    expect(early.status).toBe(403);

    // The admin approves in the console.
    const adminContext = await signedInContext(browser, product, await adminToken(product), {
      viewport: { width: 1280, height: 800 },
    });
    const adminPage = await adminContext.newPage();
    await adminPage.goto(`${product.url}/admin`);
    const row = adminPage.getByTestId(`account-${ada.email}`);
    await row.waitFor();
    await shot(adminPage, '05-admin-console');
    await row.getByRole('button', { name: 'Approve' }).click();
    await row.waitFor({ state: 'detached' }).catch(() => undefined);
    const approvalMail = await sink.waitForMail(ada.email, (mail) => /approv/i.test(mail.subject));
    expect(approvalMail.text).toContain(product.url);
    await shot(adminPage, '06-admin-console-after-approval');
    await adminContext.close();

    // The waiting page polls every 15 s and moves on to /approved-account by itself: within one poll
    // and its answer (a deadline with room for a loaded machine, not a speed check).
    await page.waitForURL('**/approved-account', { timeout: 45_000 });
    await shot(page, '07-approved-account');
    expect(await page.evaluate(() => Object.keys(localStorage))).not.toContain('ACCESS_TOKEN');

    // Login: the success message, then /profile after 3 s.
    await page.goto(product.url);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    const login = page.getByRole('dialog');
    await login.locator('input[name=email]').fill(ada.email);
    await login.locator('input[name=password]').fill(ada.password);
    await login.getByRole('button', { name: 'Login', exact: true }).click();
    await page.getByText('Login successful! Redirecting...').waitFor();
    await page.waitForURL('**/profile', { timeout: 10_000 });
    await page.getByRole('button', { name: 'Account menu' }).waitFor();
    await shot(page, '08-profile');
    const token = await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'));
    const me = (await callApi<{ data: Me }>(product, '/users/me', { token })).body.data;
    expect(me).toMatchObject({ email: ada.email, email_verified: true, is_approved: true, roles: ['user'] });

    // Profile edit: the spec's rules first, then a new name, date of birth, timezone, token and avatar.
    await page.goto(`${product.url}/profile/edit`);
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    const form = page.getByRole('form', { name: 'Edit profile' });
    await form.locator('input[name=name]').fill('a');
    await form.locator('input[name=dob]').fill(new Date().toISOString().slice(0, 10));
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Username must be at least 2 characters', { exact: true }).waitFor();
    await form.getByText('You must be at least 13 years old', { exact: true }).waitFor();
    await shot(page, '09-profile-edit-errors');
    await form.locator('input[name=name]').fill('ada_byron');
    await form.locator('input[name=dob]').fill('1990-12-10');
    await form.getByPlaceholder('Search timezones...').fill('Tokyo');
    await form.getByRole('option', { name: 'Asia/Tokyo' }).click();
    await form.getByRole('button', { name: 'Add Token' }).click();
    await form.locator('input[name=custom_ibmq_token]').fill('ibm-token_0123456789abcdef');
    // A file that only claims to be a PNG is refused by the server, which judges by content.
    await form.locator('input[type=file]').setInputFiles({
      name: 'avatar.png',
      mimeType: 'image/png',
      buffer: Buffer.from('<html><script>alert(1)</script></html>'),
    });
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Failed to upload image').first().waitFor();
    await form.getByText('Only PNG, JPG, GIF, or SVG files are allowed', { exact: true }).waitFor();
    await shot(page, '10a-profile-upload-refused');
    const avatar = pngImage(96, 96, [40, 90, 200], [250, 200, 40]);
    await form
      .locator('input[type=file]')
      .setInputFiles({ name: 'avatar.png', mimeType: 'image/png', buffer: avatar });
    await shot(page, '10-profile-edit-filled');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Profile updated successfully!').waitFor();
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
    await shot(page, '11-profile-saved');
    const edited = (await callApi<{ data: Me }>(product, '/users/me', { token })).body.data;
    expect(edited).toMatchObject({
      name: 'ada_byron',
      dob: expect.stringMatching(/^1990-12-10/),
      provided_timezone: 'Asia/Tokyo',
      has_custom_ibmq_token: true,
    });
    const stored = await callApi<{ data: { custom_ibmq_token: string | null } }>(
      product,
      `/users/${me.id}/ibmq-token`,
      { token },
    );
    expect(stored.body.data.custom_ibmq_token).toBe('ibm-token_0123456789abcdef');
    expect(edited.image_url).toMatch(/^\/api\/images\//);
    const served = await fetch(`${product.url}${edited.image_url}`);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(avatar)).toBe(true);

    // A password change: the rules in the browser, then the change ends the account's other sessions.
    const otherSession = (
      (await (
        await fetch(`${product.url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'password', username: ada.email, password: ada.password }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    expect((await callApi(product, '/users/me', { token: otherSession })).status).toBe(200);
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await form.locator('input[name=old_password]').fill(ada.password);
    await form.locator('input[name=new_password]').fill('analyt1');
    await form.locator('input[name=confirm_new_password]').fill('different#1');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Password must be at least 8 characters', { exact: true }).waitFor();
    await form.getByText('Passwords do not match', { exact: true }).waitFor();
    await form.locator('input[name=new_password]').fill('Analytical#2');
    await form.locator('input[name=confirm_new_password]').fill('Analytical#2');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
    ada.password = 'Analytical#2';
    expect((await callApi(product, '/users/me', { token: otherSession })).status).toBe(401);
    expect((await callApi(product, '/users/me', { token })).status).toBe(200);

    // Settings: another time zone, really saved.
    await page.goto(`${product.url}/setting`);
    const settings = page.getByRole('form', { name: 'Settings' });
    await settings.getByPlaceholder('Search timezones...').fill('zzz');
    await settings.getByText('No time zone found', { exact: true }).waitFor();
    await settings.getByPlaceholder('Search timezones...').fill('Paris');
    await settings.getByRole('option', { name: 'Europe/Paris' }).click();
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(
        async () =>
          (await callApi<{ data: Me }>(product, '/users/me', { token })).body.data.provided_timezone,
      )
      .toBe('Europe/Paris');
    await shot(page, '12-settings-saved');

    // The top bar shows the uploaded avatar and the new name.
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menu').getByText('Hello, ada_byron').waitFor();
    await shot(page, '13-avatar-menu');

    // Log out: the token is gone from the browser and from the server.
    await page.getByRole('menuitem', { name: 'Log Out' }).click();
    await page.getByRole('button', { name: 'Login', exact: true }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN'))).toBeNull();
    expect((await callApi(product, '/users/me', { token })).status).toBe(401);
    await shot(page, '14-logged-out');
    await context.close();

    // The admin's view of the account agrees.
    const approved = await callApi<{ data: { users: { email: string }[] } }>(
      product,
      '/admin/users?status=approved',
      {
        token: await adminToken(product),
      },
    );
    expect(approved.body.data.users.map((user) => user.email)).toContain(ada.email);
  });

  it('refuses a rejected and a disabled account with the spec-side messages, and mails the decision', async () => {
    const admin = await adminToken(product);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/accounts-refusals-failed.png` }).catch(() => undefined);
    });
    // Eve registers and verifies her address; the admin rejects her in the console.
    const eve = { name: 'eve_reject', email: 'eve@example.com', password: 'reject-me-1' };
    expect((await callApi(product, '/users', { method: 'POST', body: eve })).status).toBe(201);
    const link = await verificationLink(sink, eve.email);
    expect((await fetch(link, { redirect: 'manual' })).headers.get('location')).toBe(
      `${product.url}/email-verified`,
    );
    const adminContext = await signedInContext(browser, product, admin, {
      viewport: { width: 1280, height: 800 },
    });
    const adminPage = await adminContext.newPage();
    await adminPage.goto(`${product.url}/admin`);
    page.on('dialog', (dialog) => void dialog.accept());
    adminPage.on('dialog', (dialog) => void dialog.accept());
    await adminPage.getByTestId(`account-${eve.email}`).getByRole('button', { name: 'Reject' }).click();
    await adminPage.getByRole('status').waitFor();
    await shot(adminPage, '15-admin-rejected');
    await adminContext.close();
    const rejection = await sink.waitForMail(
      eve.email,
      (mail) => !linksIn(mail).some((l) => l.includes('token=')),
    );
    expect(rejection.subject).not.toBe('');
    const rejected = await submitLogin(page, product, eve.email, eve.password);
    await rejected.getByRole('alert').waitFor();
    expect(await rejected.getByRole('alert').textContent()).toBe('Your registration was not approved.');
    await shot(page, '16-login-rejected');

    // Ada (approved in the first test) is disabled: her sessions end and sign-in is refused.
    const approved = await callApi<{ data: { users: { id: number; email: string }[] } }>(
      product,
      '/admin/users?status=approved',
      { token: admin },
    );
    const ada = approved.body.data.users.find((user) => user.email === 'ada@example.com')!;
    const adaToken = (
      await (
        await fetch(`${product.url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'password',
            username: ada.email,
            password: 'Analytical#2',
          }),
        })
      ).json()
    ).access_token as string;
    expect((await callApi(product, '/users/me', { token: adaToken })).status).toBe(200);
    expect(
      (await callApi(product, `/admin/users/${ada.id}/disable`, { method: 'POST', token: admin })).status,
    ).toBe(200);
    expect((await callApi(product, '/users/me', { token: adaToken })).status).toBe(401);
    const disabled = await submitLogin(page, product, ada.email, 'Analytical#2');
    await disabled.getByRole('alert').waitFor();
    expect(await disabled.getByRole('alert').textContent()).toBe('This account has been disabled.');
    await shot(page, '17-login-disabled');
    await page.close();
  });
});

describe('a new account in the embedded default, where mail is kept in the outbox', () => {
  let product: RunningProduct;
  let browser: Browser;
  const lin = { name: 'lin_chen', email: 'lin@example.com', password: 'qubits42' };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [product, browser] = await Promise.all([startProduct(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });

  it('lets the admin read the verification link in the console, approve, and the person sign in', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const adminPage = await (
      await signedInContext(browser, product, await adminToken(product), {
        viewport: { width: 1280, height: 800 },
      })
    ).newPage();
    onTestFailed(async () => {
      await page.screenshot({ path: `${ARTIFACTS}/accounts-outbox-failed.png` }).catch(() => undefined);
      await adminPage
        .screenshot({ path: `${ARTIFACTS}/accounts-outbox-admin-failed.png` })
        .catch(() => undefined);
    });
    await page.goto(product.url);
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    const register = page.getByRole('dialog');
    await register.locator('input[name=name]').fill(lin.name);
    await register.locator('input[name=email]').fill(lin.email);
    await register.locator('input[name=password]').fill(lin.password);
    await register.getByRole('button', { name: 'Register', exact: true }).click();
    await page.waitForURL('**/pending-verify');
    // No social providers are configured here: the dialogs offer none.
    expect(
      (await callApi<{ data: { providers: string[] } }>(product, '/oauth2/providers')).body.data.providers,
    ).toEqual([]);
    // Signing in before the address is verified leads back to the verification page.
    await submitLogin(page, product, lin.email, lin.password);
    expect(await page.getByRole('link', { name: /Continue with/ }).count()).toBe(0);
    await page.waitForURL('**/pending-verify');

    // The admin console shows the kept mail with its link.
    await adminPage.goto(`${product.url}/admin`);
    const mail = adminPage.locator('.admin-outbox li').filter({ hasText: `to ${lin.email}` });
    const link = await mail.getByRole('link', { name: /verify-email\?token=/ }).getAttribute('href');
    expect(link).toMatch(new RegExp(`^${product.url}/api/users/verify-email\\?token=`));
    await shot(adminPage, 'outbox-01-console-with-outbox');

    await page.goto(link!);
    await page.waitForURL('**/email-verified');
    await page.getByText('Email Verified').waitFor();
    // Verified but not approved: sign-in leads to the approval page, which knows the address.
    await submitLogin(page, product, lin.email, lin.password);
    await page.waitForURL('**/waiting-admin-approval');
    await page.getByText(lin.email).waitFor();

    await adminPage.reload();
    const row = adminPage.getByTestId(`account-${lin.email}`);
    await row.getByRole('button', { name: 'Approve' }).click();
    await adminPage.getByRole('status').waitFor();
    await adminPage
      .locator('.admin-outbox li')
      .filter({ hasText: `to ${lin.email}` })
      .nth(1)
      .waitFor();
    await shot(adminPage, 'outbox-02-approved');

    await page.goto(product.url);
    await page.getByRole('button', { name: 'Login', exact: true }).click();
    const login = page.getByRole('dialog');
    await login.locator('input[name=email]').fill(lin.email);
    await login.locator('input[name=password]').fill(lin.password);
    await login.getByRole('button', { name: 'Login', exact: true }).click();
    await page.waitForURL('**/profile', { timeout: 10_000 });
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menu').getByText(`Hello, ${lin.name}`).waitFor();

    // An admin takes every role away: the access gate sends the person to /unauthorized, and a new
    // sign-in is refused with the spec's message.
    const admin = await adminToken(product);
    const linId = (
      await callApi<{ data: Me }>(product, '/users/me', {
        token: await page.evaluate(() => localStorage.getItem('ACCESS_TOKEN')),
      })
    ).body.data.id;
    expect(
      (
        await callApi(product, `/admin/users/${linId}/roles`, {
          method: 'PUT',
          token: admin,
          body: { roles: [] },
        })
      ).status,
    ).toBe(200);
    await page.goto(`${product.url}/profile`);
    await page.waitForURL('**/unauthorized');
    await page
      .getByText('No role has been assigned to your account yet. Please contact the admin.')
      .waitFor();
    await shot(page, 'outbox-03-unauthorized');
    await page.evaluate(() => localStorage.clear());
    const noRole = await submitLogin(page, product, lin.email, lin.password);
    await noRole.getByRole('alert').waitFor();
    expect(await noRole.getByRole('alert').textContent()).toBe(
      'No role has been assigned to your account yet. Please contact the admin.',
    );
    // A visitor asking for a protected page is sent home.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${product.url}/profile/settings`);
    await page.waitForURL(`${product.url}/`);
  });
});
