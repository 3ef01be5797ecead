// @vitest-environment jsdom
// The access gate for protected pages: the spec's order (no user, not verified, not approved, no
// role) and what the visitor sees.

import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../api/client';
import { account, fakeApi } from '../test-support/fake-api';
import { accessRedirect, AccessGate } from './access-gate';
import { ToastProvider } from '../components/toasts';
import { AuthProvider, USER_INFO_FAILED } from './auth-context';
import { STORED_EMAIL_KEY } from './stored-email';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

const base = { email: 'a@b.org', email_verified: true, is_approved: true, roles: ['user'] };

describe('accessRedirect', () => {
  it('sends a visitor without user or token to the given path, default /', () => {
    expect(accessRedirect(null, false)).toBe('/');
    expect(accessRedirect(base, false)).toBe('/');
    expect(accessRedirect(null, true, '/elsewhere')).toBe('/elsewhere');
  });

  it('checks verification before approval before roles', () => {
    const nothing = { ...base, email_verified: false, is_approved: false, roles: [] };
    expect(accessRedirect(nothing, true)).toBe('/pending-verify');
    expect(accessRedirect({ ...nothing, email_verified: true }, true)).toBe('/waiting-admin-approval');
    expect(accessRedirect({ ...nothing, email_verified: true, is_approved: true }, true)).toBe(
      '/unauthorized',
    );
  });

  it('shows the page to a verified, approved user with a role', () => {
    expect(accessRedirect(base, true)).toBeNull();
  });
});

function renderGate(me: object | null) {
  if (me) localStorage.setItem(ACCESS_TOKEN_KEY, 'token');
  fakeApi({ 'GET /api/users/me': () => (me ? { body: { success: true, data: me } } : { status: 401 }) });
  return render(
    <AuthProvider>
      <MemoryRouter initialEntries={['/profile']}>
        <Routes>
          <Route path="/" element={<p>home</p>} />
          <Route path="/pending-verify" element={<p>pending verify</p>} />
          <Route path="/waiting-admin-approval" element={<p>waiting approval</p>} />
          <Route path="/unauthorized" element={<p>unauthorized</p>} />
          <Route
            path="/profile"
            element={
              <AccessGate>
                <p>the protected page</p>
              </AccessGate>
            }
          />
        </Routes>
      </MemoryRouter>
    </AuthProvider>,
  );
}

describe('AccessGate', () => {
  it('shows the page to an account that passes every step', async () => {
    renderGate(account);
    expect(await screen.findByText('the protected page')).toBeTruthy();
  });

  it('sends a signed-out visitor home', async () => {
    renderGate(null);
    expect(await screen.findByText('home')).toBeTruthy();
  });

  it('sends an unverified account to /pending-verify and remembers its e-mail', async () => {
    renderGate({ ...account, email_verified: false, is_approved: false, roles: [] });
    expect(await screen.findByText('pending verify')).toBeTruthy();
    expect(localStorage.getItem(STORED_EMAIL_KEY)).toBe(account.email);
  });

  it('sends a verified but unapproved account to /waiting-admin-approval', async () => {
    renderGate({ ...account, is_approved: false, roles: [] });
    expect(await screen.findByText('waiting approval')).toBeTruthy();
  });

  it('sends an approved account without a role to /unauthorized', async () => {
    renderGate({ ...account, roles: [] });
    expect(await screen.findByText('unauthorized')).toBeTruthy();
  });
});

describe('the current user', () => {
  it("treats a stored token whose user cannot be fetched as signed out, with 'Failed to fetch user info. Please login again.'", async () => {
    localStorage.setItem(ACCESS_TOKEN_KEY, 'expired');
    fakeApi({
      'GET /api/users/me': () => ({ status: 401, body: { success: false, detail: 'Invalid token' } }),
    });
    render(
      <ToastProvider>
        <AuthProvider>
          <MemoryRouter initialEntries={['/profile']}>
            <Routes>
              <Route path="/" element={<p>home</p>} />
              <Route path="/profile" element={<AccessGate>protected</AccessGate>} />
            </Routes>
          </MemoryRouter>
        </AuthProvider>
      </ToastProvider>,
    );
    expect(await screen.findByText(USER_INFO_FAILED)).toBeTruthy();
    expect(await screen.findByText('home')).toBeTruthy();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
  });

  // A lookup cut short (the page navigated away: Chromium rejects the fetch) or a server that is down
  // says nothing about the token: the next page, which shares its storage, is still signed in.
  it.each([
    ['a fetch that never got an answer', () => Promise.reject(new TypeError('Failed to fetch'))],
    ['a server error', () => Promise.resolve(new Response('{}', { status: 503 }))],
  ])('keeps the stored token after %s', async (_what, answer) => {
    localStorage.setItem(ACCESS_TOKEN_KEY, 'still good');
    vi.stubGlobal('fetch', vi.fn(answer));
    render(
      <ToastProvider>
        <AuthProvider>
          <p>home</p>
        </AuthProvider>
      </ToastProvider>,
    );
    expect(await screen.findByText(USER_INFO_FAILED)).toBeTruthy();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('still good');
  });
});
