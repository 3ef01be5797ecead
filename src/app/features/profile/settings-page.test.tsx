// @vitest-environment jsdom
// The settings page: the browser's zone by default, the zone search with its empty text, and Save
// changes really saving (PUT /users/{id} with the settings-only body) and keeping the zone locally.

import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../../api/client';
import { ToastProvider } from '../../components/toasts';
import { account, fakeApi, type Call } from '../../test-support/fake-api';
import { AuthProvider } from '../../session/auth-context';
import { PROFILE_UPDATED } from './profile-edit-page';
import { SettingsPage } from './settings-page';
import { guessTimeZone, searchTimeZones, USER_TIMEZONE_KEY } from '../../format/timezones';

beforeEach(() => localStorage.setItem(ACCESS_TOKEN_KEY, 'token'));
afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function renderPage(saved: object): Call[] {
  // The account as the server keeps it: a PUT changes what the next GET /users/me answers.
  let me = saved;
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: me } }),
    'PUT /api/users/7': (call) => {
      me = { ...me, ...(call.body as object) };
      return { body: { success: true, message: PROFILE_UPDATED, data: me } };
    },
  });
  render(
    <AuthProvider>
      <ToastProvider>
        <MemoryRouter>
          <SettingsPage />
        </MemoryRouter>
      </ToastProvider>
    </AuthProvider>,
  );
  return calls;
}

describe('Settings', () => {
  it("offers the browser's zone when the account has none, searches every zone, and says 'No time zone found'", async () => {
    renderPage({ ...account, provided_timezone: null });
    const picker = await screen.findByRole('combobox');
    expect((picker as HTMLInputElement).value).toBe(guessTimeZone());
    expect(picker.getAttribute('placeholder')).toBe('Search timezones...');
    fireEvent.focus(picker);
    fireEvent.change(picker, { target: { value: 'zzzz' } });
    expect(screen.getByText('No time zone found')).toBeTruthy();
  });

  it('saves the chosen zone and a new token with PUT /users/{id}', async () => {
    const calls = renderPage(account);
    const picker = await screen.findByRole('combobox');
    fireEvent.focus(picker);
    fireEvent.change(picker, { target: { value: 'tokyo' } });
    fireEvent.mouseDown(screen.getByRole('option', { name: 'Asia/Tokyo' }));
    fireEvent.change(document.querySelector('input[name=custom_ibmq_token]')!, {
      target: { value: 'tok-1_a' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(await screen.findByText(PROFILE_UPDATED)).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({
      provided_timezone: 'Asia/Tokyo',
      custom_ibmq_token: 'tok-1_a',
    });
    expect(localStorage.getItem(USER_TIMEZONE_KEY)).toBe('Asia/Tokyo');
  });

  it('refuses a token with other characters before sending', async () => {
    const calls = renderPage(account);
    await screen.findByRole('combobox');
    fireEvent.change(document.querySelector('input[name=custom_ibmq_token]')!, {
      target: { value: 'no spaces' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes' }));
    expect(
      await screen.findByText('Token can only contain letters, numbers, hyphens, and underscores'),
    ).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });
});

describe('searchTimeZones', () => {
  it('matches every word, with spaces for underscores', () => {
    expect(searchTimeZones('new york')).toContain('America/New_York');
    expect(searchTimeZones('america york')).toContain('America/New_York');
    expect(searchTimeZones('nowhere land')).toEqual([]);
  });
});
