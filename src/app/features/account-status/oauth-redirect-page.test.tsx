// @vitest-environment jsdom
// /oauth2/redirect: the token becomes the session; a refusal of the sign-in gate goes to its page.

import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../../api/client';
import { account, fakeApi } from '../../test-support/fake-api';
import { AuthProvider } from '../../session/auth-context';
import { STORED_EMAIL_KEY } from '../../session/stored-email';
import { OAuthRedirectPage } from './oauth-redirect-page';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function renderAt(path: string) {
  fakeApi({ 'GET /api/users/me': () => ({ body: { success: true, data: account } }) });
  render(
    <AuthProvider>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/oauth2/redirect" element={<OAuthRedirectPage />} />
          <Route path="/" element={<p>page home</p>} />
          <Route path="/waiting-admin-approval" element={<p>page waiting</p>} />
        </Routes>
      </MemoryRouter>
    </AuthProvider>,
  );
}

it('keeps the token as the session token and goes to /', async () => {
  renderAt('/oauth2/redirect?token=abc');
  expect(await screen.findByText('page home')).toBeTruthy();
  expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('abc');
});

it('sends an account waiting for approval to its page, remembering the e-mail', async () => {
  renderAt('/oauth2/redirect?error=not_approved&email=ada%40example.org');
  expect(await screen.findByText('page waiting')).toBeTruthy();
  expect(localStorage.getItem(STORED_EMAIL_KEY)).toBe('ada@example.org');
  expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
});

it('ignores any other error and goes to /', async () => {
  renderAt('/oauth2/redirect?error=access_denied');
  expect(await screen.findByText('page home')).toBeTruthy();
  expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
});
