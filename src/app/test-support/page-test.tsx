// Shared set-up of the jsdom page tests: a clean browser between tests, a signed-in browser's token,
// a catch-all route that shows where a page navigated to, and the app's providers around a page.
import { cleanup, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../api/client';
import { ToastProvider } from '../components/toasts';
import { AccountModalsProvider } from '../session/account-modals';
import { AuthProvider } from '../session/auth-context';

/** After each test: unmount, clear localStorage, restore the real fetch and real timers. */
export function cleanBrowserAfterEach(): void {
  afterEach(() => {
    cleanup();
    localStorage.clear();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
}

/** Stores an access token, as the browser of a signed-in user holds one. */
export function storeToken(): void {
  localStorage.setItem(ACCESS_TOKEN_KEY, 'token');
}

/** The current path, for the catch-all route `<Route path="*" element={<Where />} />`. */
export function Where() {
  return <p data-testid="where">{useLocation().pathname}</p>;
}

/**
 * Renders `routes` at `path` inside the app's providers, in app.tsx's order (toasts if asked, the
 * signed-in user, a router, the Login and Register modals), with the catch-all `<Where />` route.
 */
export function renderInShell(path: string, routes: ReactNode, { toasts = false } = {}) {
  const page = (
    <AuthProvider>
      <MemoryRouter initialEntries={[path]}>
        <AccountModalsProvider>
          <Routes>
            {routes}
            <Route path="*" element={<Where />} />
          </Routes>
        </AccountModalsProvider>
      </MemoryRouter>
    </AuthProvider>
  );
  return render(toasts ? <ToastProvider>{page}</ToastProvider> : page);
}
