// @vitest-environment jsdom
// My Profile's form: the spec's rules and messages field by field (from the account forms' rules),
// what Save sends (password trio only when filled, the token only when its editor was used), the
// toasts, the avatar upload aborting the save when it fails, and Cancel discarding changes.

import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../../api/client';
import { ToastProvider } from '../../components/toasts';
import { account, fakeApi, type Call } from '../../test-support/fake-api';
import { AuthProvider } from '../../session/auth-context';
import { PROFILE_FAILED, PROFILE_UPDATED, ProfileEditPage, UPLOAD_FAILED } from './profile-edit-page';
import { MAX_MASK_DOTS, maskToken } from './token-field';

beforeEach(() => localStorage.setItem(ACCESS_TOKEN_KEY, 'token'));
afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

const STORED_TOKEN = 'stored_token-123';

function renderPage(extra: Parameters<typeof fakeApi>[0] = {}, me: object = account): Call[] {
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: me } }),
    'GET /api/users/7/ibmq-token': () => ({
      body: { success: true, data: { custom_ibmq_token: STORED_TOKEN } },
    }),
    'PUT /api/users/7': () => ({ body: { success: true, message: PROFILE_UPDATED, data: me } }),
    ...extra,
  });
  render(
    <AuthProvider>
      <ToastProvider>
        <MemoryRouter>
          <ProfileEditPage />
        </MemoryRouter>
      </ToastProvider>
    </AuthProvider>,
  );
  return calls;
}

const input = (name: string) => document.querySelector<HTMLInputElement>(`input[name=${name}]`)!;
const fill = (name: string, value: string) => fireEvent.change(input(name), { target: { value } });
const click = (name: string) => fireEvent.click(screen.getByRole('button', { name }));
const puts = (calls: Call[]) => calls.filter((c) => c.method === 'PUT');
async function edit() {
  click(await screen.findByRole('button', { name: 'Edit Profile' }).then(() => 'Edit Profile'));
  await screen.findByRole('form', { name: 'Edit profile' });
}

describe('My Profile', () => {
  it('shows the profile in view mode first', async () => {
    renderPage();
    expect(await screen.findByText('1990-04-01')).toBeTruthy();
    expect(screen.getByText('Europe/Berlin')).toBeTruthy();
    expect(screen.queryByRole('form')).toBeNull();
  });

  it.each([
    ['name', '', 'Username is required'],
    ['name', 'a', 'Username must be at least 2 characters'],
    ['name', 'a'.repeat(51), 'Username must not exceed 50 characters'],
    ['name', 'ada lovelace', 'Username can only contain letters, numbers, and underscores'],
    ['dob', '', 'Date of birth is required'],
    [
      'dob',
      new Date(Date.now() - 5 * 365 * 864e5).toISOString().slice(0, 10),
      'You must be at least 13 years old',
    ],
  ])('refuses %s = %j with %j and sends nothing', async (field, value, message) => {
    const calls = renderPage();
    await edit();
    fill(field, value);
    click('Save');
    expect(await screen.findByText(message)).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
  });

  it('clears a field error as soon as the field is corrected after a refused Save', async () => {
    renderPage();
    await edit();
    fill('name', 'a');
    click('Save');
    expect(await screen.findByText('Username must be at least 2 characters')).toBeTruthy();
    fill('name', 'ada_lovelace');
    await waitFor(() => expect(screen.queryByText('Username must be at least 2 characters')).toBeNull());
  });

  it('checks the password trio: lengths and matching', async () => {
    const calls = renderPage();
    await edit();
    fill('old_password', 'short');
    fill('new_password', 'short12');
    fill('confirm_new_password', 'different1!');
    click('Save');
    expect(await screen.findByText('Password must be at least 6 characters')).toBeTruthy();
    expect(screen.getByText('Password must be at least 8 characters')).toBeTruthy();
    expect(screen.getByText('Passwords do not match')).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
  });

  it('checks the token: characters and length', async () => {
    const calls = renderPage({}, { ...account, has_custom_ibmq_token: false });
    await edit();
    click('Add Token');
    fill('custom_ibmq_token', 'has space');
    click('Save');
    expect(
      await screen.findByText('Token can only contain letters, numbers, hyphens, and underscores'),
    ).toBeTruthy();
    fill('custom_ibmq_token', 'x'.repeat(301));
    click('Save');
    expect(await screen.findByText('Token must not exceed 300 characters')).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
  });

  it('saves the profile without passwords or token when those were left alone, then shows the toast', async () => {
    const calls = renderPage();
    await edit();
    fill('name', 'ada_byron');
    click('Save');
    expect(await screen.findByText(PROFILE_UPDATED)).toBeTruthy();
    expect(puts(calls)[0]!.body).toEqual({
      name: 'ada_byron',
      dob: '1990-04-01',
      provided_timezone: 'Europe/Berlin',
    });
    expect(await screen.findByRole('button', { name: 'Edit Profile' })).toBeTruthy();
  });

  it('sends the password trio when all three are filled, and a cleared token as empty', async () => {
    const calls = renderPage({}, { ...account, has_custom_ibmq_token: true });
    await edit();
    fill('old_password', 'oldpassword1');
    fill('new_password', 'newpass1!');
    fill('confirm_new_password', 'newpass1!');
    click('Edit Token');
    await waitFor(() => expect(input('custom_ibmq_token').value).toBe(STORED_TOKEN));
    click('Clear Token');
    expect(input('custom_ibmq_token').value).toBe('');
    click('Save');
    await screen.findByText(PROFILE_UPDATED);
    expect(puts(calls)[0]!.body).toMatchObject({
      old_password: 'oldpassword1',
      new_password: 'newpass1!',
      confirm_new_password: 'newpass1!',
      custom_ibmq_token: '',
    });
  });

  it('keeps the stored token when a field is typed in just as the token arrives', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    renderPage(
      {
        'GET /api/users/7/ibmq-token': async () => {
          await held;
          return { body: { success: true, data: { custom_ibmq_token: STORED_TOKEN } } };
        },
      },
      { ...account, has_custom_ibmq_token: true },
    );
    await edit();
    release();
    // Let the token's promise chain settle (microtasks) without letting React render it yet.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    fill('old_password', 'oldpassword1');
    click('Edit Token');
    await waitFor(() => expect(input('custom_ibmq_token').value).toBe(STORED_TOKEN));
    expect(input('old_password').value).toBe('oldpassword1');
  });

  it("shows 'Failed to update profile' and the server's field message when the save is refused", async () => {
    renderPage({
      'PUT /api/users/7': () => ({
        status: 400,
        body: {
          success: false,
          detail: 'Current password is incorrect',
          errors: [{ field: '/old_password', message: 'Current password is incorrect' }],
        },
      }),
    });
    await edit();
    fill('old_password', 'oldpassword1');
    fill('new_password', 'newpass1!');
    fill('confirm_new_password', 'newpass1!');
    click('Save');
    expect(await screen.findByText(PROFILE_FAILED)).toBeTruthy();
    expect(screen.getByText('Current password is incorrect')).toBeTruthy();
  });

  it("shows the server's message as an error toast when the reply says success false", async () => {
    renderPage({ 'PUT /api/users/7': () => ({ body: { success: false, message: 'Nothing to change' } }) });
    await edit();
    click('Save');
    expect((await screen.findByText('Nothing to change')).getAttribute('role')).toBe('alert');
  });

  it("refuses a file that is not an image and aborts the save with 'Failed to upload image' when the upload fails", async () => {
    const calls = renderPage();
    await edit();
    const picker = input('image');
    fireEvent.change(picker, { target: { files: [new File(['x'], 'notes.txt', { type: 'text/plain' })] } });
    expect(await screen.findByText('Only PNG, JPG, GIF, or SVG files are allowed')).toBeTruthy();
    const big = new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'big.png', { type: 'image/png' });
    fireEvent.change(picker, { target: { files: [big] } });
    expect(await screen.findByText('File size must not exceed 2MB')).toBeTruthy();

    // The upload fails at the network, as a dropped connection would.
    vi.stubGlobal(
      'XMLHttpRequest',
      class {
        upload = {};
        onerror: (() => void) | null = null;
        open() {}
        setRequestHeader() {}
        send() {
          setTimeout(() => this.onerror?.(), 0);
        }
      },
    );
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: () => 'blob:x', revokeObjectURL: () => undefined }),
    );
    fireEvent.change(picker, { target: { files: [new File(['png'], 'me.png', { type: 'image/png' })] } });
    click('Save');
    expect((await screen.findAllByText(UPLOAD_FAILED)).length).toBeGreaterThan(0);
    expect(puts(calls)).toHaveLength(0);
  });

  it('uploads the chosen avatar with a progress bar, then saves its URL', async () => {
    const calls = renderPage();
    await edit();
    let progressSeen = '';
    vi.stubGlobal(
      'URL',
      Object.assign(URL, { createObjectURL: () => 'blob:x', revokeObjectURL: () => undefined }),
    );
    vi.stubGlobal(
      'XMLHttpRequest',
      class {
        upload: { onprogress?: (e: { lengthComputable: boolean; loaded: number; total: number }) => void } =
          {};
        onload: (() => void) | null = null;
        status = 200;
        responseText = JSON.stringify({ success: true, image_url: '/api/images/abc.png' });
        open() {}
        setRequestHeader() {}
        send() {
          setTimeout(() => {
            this.upload.onprogress?.({ lengthComputable: true, loaded: 1, total: 2 });
            setTimeout(() => {
              progressSeen = screen.queryByRole('progressbar')?.getAttribute('aria-valuenow') ?? '';
              this.onload?.();
            }, 0);
          }, 0);
        }
      },
    );
    fireEvent.change(input('image'), {
      target: { files: [new File(['png'], 'me.png', { type: 'image/png' })] },
    });
    click('Save');
    expect(await screen.findByText(PROFILE_UPDATED)).toBeTruthy();
    expect(progressSeen).toBe('50');
    expect(puts(calls)[0]!.body).toMatchObject({ image_url: '/api/images/abc.png' });
  });

  it("searches every time zone, says 'No timezone found', and shows or hides the token", async () => {
    renderPage({}, { ...account, has_custom_ibmq_token: true });
    await edit();
    const picker = screen.getByRole('combobox');
    fireEvent.focus(picker);
    fireEvent.change(picker, { target: { value: 'tokyo' } });
    expect(screen.getByRole('option', { name: 'Asia/Tokyo' })).toBeTruthy();
    fireEvent.change(picker, { target: { value: 'no such zone' } });
    expect(screen.getByText('No timezone found')).toBeTruthy();
    click('Edit Token');
    await waitFor(() => expect(input('custom_ibmq_token').value).toBe(STORED_TOKEN));
    expect(input('custom_ibmq_token').type).toBe('password');
    click('Show');
    expect(input('custom_ibmq_token').type).toBe('text');
    click('Hide');
    expect(input('custom_ibmq_token').type).toBe('password');
  });

  it('Cancel discards the changes and returns to view mode', async () => {
    const calls = renderPage();
    await edit();
    fill('name', 'changed_name');
    click('Cancel');
    expect(await screen.findByRole('button', { name: 'Edit Profile' })).toBeTruthy();
    expect(screen.queryByText('changed_name')).toBeNull();
    await edit();
    expect(input('name').value).toBe(account.name);
    expect(puts(calls)).toHaveLength(0);
  });
});

describe('the token mask', () => {
  it('shows one dot per character up to 40', () => {
    expect(maskToken('abc')).toBe('•••');
    expect(maskToken('x'.repeat(300))).toHaveLength(MAX_MASK_DOTS);
  });
});
