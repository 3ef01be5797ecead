// @vitest-environment jsdom
// The top bar (spec section 2): the visitor and signed-in menus, the initials avatar and its menu,
// and the solid background past 50 px of scrolling.

import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../api/client';
import { AccountModalsProvider } from '../session/account-modals';
import { AuthProvider } from '../session/auth-context';
import { account, fakeApi } from '../test-support/fake-api';
import { TopBar } from './top-bar';
import { initialsOf } from './user-avatar';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function renderBar(signedIn: boolean) {
  if (signedIn) localStorage.setItem(ACCESS_TOKEN_KEY, 'token');
  fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/oauth2/providers': () => ({ body: { success: true, data: { providers: [] } } }),
  });
  render(
    <AuthProvider>
      <MemoryRouter>
        <AccountModalsProvider>
          <TopBar />
        </AccountModalsProvider>
      </MemoryRouter>
    </AuthProvider>,
  );
}

const menuLinks = () =>
  within(screen.getByRole('navigation', { name: 'Main' }))
    .getAllByRole('link')
    .map((link) => link.textContent);

describe('the top bar', () => {
  it('shows visitors Home, Services, Examples, Overview and the Login and Register buttons', async () => {
    renderBar(false);
    expect(menuLinks()).toEqual(['Home', 'Services', 'Examples', 'Overview']);
    fireEvent.click(screen.getByRole('button', { name: 'Register' }));
    // The dialog loads on demand (it carries the engine's validator): give the import time on a busy machine.
    expect(await screen.findByRole('dialog', { name: 'Register' }, { timeout: 5000 })).toBeTruthy();
  });

  it("shows a signed-in user Dashboard, All Applications, Examples and an initials avatar menu with 'Hello, {name}'", async () => {
    renderBar(true);
    const avatar = await screen.findByRole('button', { name: 'Account menu' });
    expect(menuLinks()).toEqual(['Dashboard', 'All Applications', 'Examples']);
    expect(avatar.textContent).toBe('AL');
    fireEvent.click(avatar);
    const menu = screen.getByRole('menu');
    expect(within(menu).getByText(`Hello, ${account.name}`)).toBeTruthy();
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['My profile', 'Log Out']);
  });

  it('turns solid after 50 px of scrolling', () => {
    renderBar(false);
    const bar = document.querySelector('header')!;
    act(() => {
      window.scrollY = 50;
      window.dispatchEvent(new Event('scroll'));
    });
    expect(bar.classList.contains('solid')).toBe(false);
    act(() => {
      window.scrollY = 51;
      window.dispatchEvent(new Event('scroll'));
    });
    expect(bar.classList.contains('solid')).toBe(true);
  });
});

it('makes initials from the name', () => {
  expect(initialsOf('ada_lovelace')).toBe('AL');
  expect(initialsOf('grace')).toBe('G');
  expect(initialsOf('')).toBe('?');
});
