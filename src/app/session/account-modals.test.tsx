// @vitest-environment jsdom
// The Login and Register dialogs: the spec's messages (sections 4, 5 and 8) from the account forms'
// rules, what a refused sign-in does, and where success leads.

import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../api/client';
import { fakeApi } from '../test-support/fake-api';
import { LOGIN_FAILED, LOGIN_REDIRECT_MS, LOGIN_SUCCESS, LoginModal } from './login-modal';
import { RegisterModal } from './register-modal';
import { STORED_EMAIL_KEY } from './stored-email';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function renderAt(modal: ReactNode) {
  const page = (name: string) => <p>page {name}</p>;
  return render(
    <MemoryRouter initialEntries={['/']}>
      {modal}
      <Routes>
        <Route path="/" element={page('home')} />
        <Route path="/profile" element={page('profile')} />
        <Route path="/pending-verify" element={page('pending verify')} />
        <Route path="/waiting-admin-approval" element={page('waiting approval')} />
      </Routes>
    </MemoryRouter>,
  );
}

const fill = (name: string, value: string) =>
  fireEvent.change(document.querySelector(`input[name=${name}]`)!, { target: { value } });
const submit = (label: string) => fireEvent.click(screen.getByRole('button', { name: label }));

describe('the Login dialog', () => {
  const props = { onClose: vi.fn(), onSignedIn: vi.fn(), onRegister: vi.fn() };

  it('asks for the e-mail and password with the spec messages, without calling the server', async () => {
    const calls = fakeApi({});
    renderAt(<LoginModal {...props} />);
    submit('Login');
    expect(await screen.findByText('Email is required.')).toBeTruthy();
    expect(screen.getByText('Password is required.')).toBeTruthy();
    fill('email', 'not-an-address');
    submit('Login');
    expect(await screen.findByText('Invalid email format')).toBeTruthy();
    expect(calls.filter((c) => c.path === '/api/login')).toHaveLength(0);
  });

  it('is keyboard-usable: focus starts inside, Escape closes it', () => {
    const onClose = vi.fn();
    fakeApi({});
    renderAt(<LoginModal {...props} onClose={onClose} />);
    const dialog = screen.getByRole('dialog', { name: 'Login' });
    expect(dialog.contains(document.activeElement)).toBe(true);
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("shows the server's detail when the sign-in is refused", async () => {
    fakeApi({
      'POST /api/login': () => ({
        status: 401,
        body: { success: false, detail: 'Incorrect email or password' },
      }),
    });
    renderAt(<LoginModal {...props} />);
    fill('email', 'ada@example.org');
    fill('password', 'wrong');
    submit('Login');
    expect((await screen.findByRole('alert')).textContent).toBe('Incorrect email or password');
  });

  it("says 'Login failed. Please try again.' when the server cannot be reached", async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    renderAt(<LoginModal {...props} />);
    fill('email', 'ada@example.org');
    fill('password', 'secret');
    submit('Login');
    expect((await screen.findByRole('alert')).textContent).toBe(LOGIN_FAILED);
  });

  it('shows the missing-role message in the dialog and keeps no token', async () => {
    const detail = 'No role has been assigned to your account yet. Please contact the admin.';
    fakeApi({
      'POST /api/login': () => ({
        status: 403,
        body: { success: false, detail, data: { redirect: '/unauthorized', email: 'ada@example.org' } },
      }),
    });
    renderAt(<LoginModal {...props} />);
    fill('email', 'ada@example.org');
    fill('password', 'secret');
    submit('Login');
    expect((await screen.findByRole('alert')).textContent).toBe(detail);
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
  });

  it('sends an account waiting for approval to /waiting-admin-approval, remembering the e-mail', async () => {
    fakeApi({
      'POST /api/login': () => ({
        status: 403,
        body: {
          success: false,
          detail: 'Your account is waiting for admin approval.',
          data: { redirect: '/waiting-admin-approval', email: 'ada@example.org' },
        },
      }),
    });
    renderAt(<LoginModal {...props} />);
    fill('email', 'ada@example.org');
    fill('password', 'secret');
    submit('Login');
    expect(await screen.findByText('page waiting approval')).toBeTruthy();
    expect(localStorage.getItem(STORED_EMAIL_KEY)).toBe('ada@example.org');
  });

  it("shows 'Login successful! Redirecting...' and goes to /profile after 3 s", async () => {
    fakeApi({
      'POST /api/login': () => ({
        body: {
          success: true,
          access_token: 't',
          token_type: 'bearer',
          expires_in: 60,
          data: {
            access_token: 't',
            token_type: 'bearer',
            expires_in: 60,
            redirect: '/profile',
            email: 'a@b.org',
          },
        },
      }),
    });
    const onSignedIn = vi.fn();
    renderAt(<LoginModal {...props} onSignedIn={onSignedIn} />);
    fill('email', 'ada@example.org');
    fill('password', 'secret');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    submit('Login');
    expect((await screen.findByRole('status')).textContent).toBe(LOGIN_SUCCESS);
    expect(onSignedIn).toHaveBeenCalled();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('t');
    expect(screen.queryByText('page profile')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(LOGIN_REDIRECT_MS - 100));
    expect(screen.queryByText('page profile')).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.getByText('page profile')).toBeTruthy();
  });
});

describe('the Register dialog', () => {
  const props = { onClose: vi.fn(), onLogin: vi.fn() };

  it('gives the registration messages field by field', async () => {
    fakeApi({});
    renderAt(<RegisterModal {...props} />);
    submit('Register');
    expect(await screen.findByText('Username is required')).toBeTruthy();
    expect(screen.getByText('Email is required')).toBeTruthy();
    expect(screen.getByText('Password is required')).toBeTruthy();
    fill('name', 'ab');
    fill('email', 'nope');
    fill('password', '1234567');
    submit('Register');
    expect(await screen.findByText('Username must be at least 3 characters')).toBeTruthy();
    expect(screen.getByText('Invalid email format')).toBeTruthy();
    expect(screen.getByText('Password must be at least 8 characters')).toBeTruthy();
  });

  it("shows the server's detail (a taken e-mail)", async () => {
    const detail = 'An account with this e-mail already exists.';
    fakeApi({ 'POST /api/users': () => ({ status: 409, body: { success: false, detail } }) });
    renderAt(<RegisterModal {...props} />);
    fill('name', 'ada_l');
    fill('email', 'ada@example.org');
    fill('password', 'bell-state-42');
    submit('Register');
    expect((await screen.findByRole('alert')).textContent).toBe(detail);
  });

  it('registers without roles, keeps the e-mail and goes to /pending-verify', async () => {
    const calls = fakeApi({
      'POST /api/users': () => ({
        status: 201,
        body: { success: true, message: 'ok', data: { id: 1, email: 'a' } },
      }),
    });
    renderAt(<RegisterModal {...props} />);
    fill('name', 'ada_l');
    fill('email', ' ada@example.org ');
    fill('password', 'bell-state-42');
    submit('Register');
    expect(await screen.findByText('page pending verify')).toBeTruthy();
    expect(localStorage.getItem(STORED_EMAIL_KEY)).toBe('ada@example.org');
    expect(calls.find((c) => c.path === '/api/users')?.body).toEqual({
      name: 'ada_l',
      email: 'ada@example.org',
      password: 'bell-state-42',
    });
  });
});
