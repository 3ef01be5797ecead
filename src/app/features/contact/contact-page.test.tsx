// @vitest-environment jsdom
// The contact page: name and e-mail start as the signed-in user's, the contact form's rules (from
// schemas/accounts.json) speak before anything is sent, a sent message shows the server's text in a
// toast and empties the message, and a refusal shows its field message and an error toast.

import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY } from '../../api/client';
import { ToastProvider } from '../../components/toasts';
import { account, fakeApi } from '../../test-support/fake-api';
import { AuthProvider, useAuth } from '../../session/auth-context';
import { ContactPage } from './contact-page';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

async function renderContact(reply: Parameters<typeof fakeApi>[0][string]) {
  localStorage.setItem(ACCESS_TOKEN_KEY, 'token');
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'POST /api/contact': reply,
  });
  render(
    <ToastProvider>
      <AuthProvider>
        <MemoryRouter initialEntries={['/contact']}>
          <Routes>
            <Route path="/contact" element={<Gate />} />
            <Route path="/" element={<p>home page</p>} />
          </Routes>
        </MemoryRouter>
      </AuthProvider>
    </ToastProvider>,
  );
  await screen.findByRole('button', { name: 'Send Message' });
  return calls;
}

// Like the access gate: the page is shown once the user is known.
function Gate() {
  const { user } = useAuth();
  return user ? <ContactPage /> : null;
}

const field = (name: string) => document.querySelector(`[name=${name}]`) as HTMLInputElement;

describe('the contact page', () => {
  it('checks the form before sending, then sends and shows the server’s text', async () => {
    const calls = await renderContact(() => ({
      body: { success: true, message: 'Your message has been sent.' },
    }));
    expect(field('name').value).toBe(account.name);
    expect(field('email').value).toBe(account.email);
    fireEvent.change(field('email'), { target: { value: 'not-an-address' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Message' }));
    expect(await screen.findByText('This field is required')).toBeTruthy();
    expect(screen.getByText('Invalid email format')).toBeTruthy();
    expect(field('message').getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((call) => call.path === '/api/contact')).toBe(false);

    fireEvent.change(field('email'), { target: { value: 'ada@example.org' } });
    fireEvent.change(field('message'), { target: { value: 'Hello admins' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Message' }));
    expect((await screen.findByRole('status')).textContent).toBe('Your message has been sent.');
    expect(calls.find((call) => call.path === '/api/contact')!.body).toEqual({
      name: account.name,
      email: 'ada@example.org',
      message: 'Hello admins',
    });
    expect(field('message').value).toBe('');
  });

  it('shows a refusal’s field message and an error toast, and Go back leaves', async () => {
    await renderContact(() => ({
      status: 400,
      body: {
        success: false,
        detail: 'Invalid contact message',
        errors: [{ field: '/message', message: 'Message must not exceed 5000 characters' }],
      },
    }));
    fireEvent.change(field('message'), { target: { value: 'Hello' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send Message' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Invalid contact message');
    expect(screen.getByText('Message must not exceed 5000 characters')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Go back' }));
    expect(await screen.findByText('home page')).toBeTruthy();
  });
});
