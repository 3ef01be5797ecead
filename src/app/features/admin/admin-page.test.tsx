// @vitest-environment jsdom
// The admin console against a stubbed API: who may see it, the accounts of a group with the
// decisions that group allows, a decision sent and its message shown, roles saved, and the outbox's
// links.

import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { setAccessToken } from '../../api/client';
import { AuthProvider } from '../../session/auth-context';
import { AdminPage } from './admin-page';

const account = (over: Record<string, unknown>) => ({
  id: 7,
  name: 'ada',
  email: 'ada@example.com',
  email_verified: true,
  is_approved: false,
  roles: [],
  status: 'pending-approval',
  created_at: '2026-01-01T00:00:00.000Z',
  approved_at: null,
  rejected_at: null,
  disabled_at: null,
  ...over,
});

const LINK = 'http://localhost:8080/api/users/verify-email?token=abc';

/** A stand-in API: answers by method and path, and records every call. */
function stubApi(roles: string[]) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  let users = [account({})];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const path = url.replace(/^\/api/, '');
    const method = init.method ?? 'GET';
    calls.push({ method, path, body: init.body ? JSON.parse(String(init.body)) : null });
    const json = (data: unknown) => new Response(JSON.stringify(data), { status: 200 });
    if (path === '/users/me') {
      return json({ success: true, data: { id: 1, name: 'root', email: 'root@example.com', roles } });
    }
    if (path.startsWith('/admin/users?') || path === '/admin/users') {
      return json({ success: true, data: { users, roles: ['admin', 'user'] } });
    }
    if (path === '/admin/outbox') {
      const mail = {
        id: 1,
        recipient: 'ada@example.com',
        subject: 'Verify your e-mail',
        body: `Open ${LINK} to verify.`,
        kind: 'verification',
        created_at: '2026-01-01T00:00:00.000Z',
        sent_at: null,
      };
      return json({ success: true, data: { mode: 'outbox', messages: [mail] } });
    }
    if (path === '/admin/users/7/approve' && method === 'POST') {
      users = [account({ is_approved: true, roles: ['user'], status: 'approved' })];
      return json({ success: true, message: 'User approved.', data: users[0] });
    }
    if (path === '/admin/users/7/roles' && method === 'PUT') {
      users = [account({ roles: ['admin'] })];
      return json({ success: true, message: 'Roles updated.', data: users[0] });
    }
    return new Response(JSON.stringify({ success: false, detail: 'Not found' }), { status: 404 });
  });
  return calls;
}

function renderPage() {
  setAccessToken('a-token');
  return render(
    <AuthProvider>
      <MemoryRouter initialEntries={['/admin']}>
        <AdminPage />
      </MemoryRouter>
    </AuthProvider>,
  );
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  setAccessToken(null);
});

describe('the admin console', () => {
  it('is closed to users who are not admins', async () => {
    const calls = stubApi(['user']);
    renderPage();
    expect(await screen.findByText('This page is for administrators.')).toBeTruthy();
    expect(calls.some((c) => c.path.startsWith('/admin'))).toBe(false);
  });

  it('approves a waiting registration and shows the server message', async () => {
    const calls = stubApi(['admin', 'user']);
    renderPage();
    const row = await screen.findByTestId('account-ada@example.com');
    expect(calls).toContainEqual({ method: 'GET', path: '/admin/users?status=pending-approval', body: null });
    // A pending-approval account offers exactly its group's decisions.
    const actions = within(row)
      .getAllByRole('button')
      .map((b) => b.textContent);
    expect(actions).toEqual(['Approve', 'Reject', 'Disable']);

    fireEvent.click(within(row).getByRole('button', { name: 'Approve' }));
    expect((await screen.findByRole('status')).textContent).toBe('User approved.');
    expect(calls).toContainEqual({ method: 'POST', path: '/admin/users/7/approve', body: null });
    // The list loads again: the account now shows its new group.
    await waitFor(() =>
      expect(within(screen.getByTestId('account-ada@example.com')).getByText('Approved')).toBeTruthy(),
    );
  });

  it('asks before disabling, and does nothing when the admin says no', async () => {
    const calls = stubApi(['admin']);
    const confirm = vi.fn(() => false);
    vi.stubGlobal('confirm', confirm);
    renderPage();
    const row = await screen.findByTestId('account-ada@example.com');
    fireEvent.click(within(row).getByRole('button', { name: 'Disable' }));
    expect(confirm).toHaveBeenCalledWith('Disable ada@example.com?');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('saves a changed role set', async () => {
    const calls = stubApi(['admin']);
    renderPage();
    const row = await screen.findByTestId('account-ada@example.com');
    expect(within(row).queryByRole('button', { name: 'Save roles' })).toBeNull();
    fireEvent.click(within(row).getByRole('checkbox', { name: 'admin' }));
    fireEvent.click(within(row).getByRole('button', { name: 'Save roles' }));
    expect((await screen.findByRole('status')).textContent).toBe('Roles updated.');
    expect(calls).toContainEqual({ method: 'PUT', path: '/admin/users/7/roles', body: { roles: ['admin'] } });
  });

  it('shows the outbox with its links and links the other admin pages', async () => {
    stubApi(['admin']);
    renderPage();
    const link = await screen.findByRole('link', { name: LINK });
    expect(link.getAttribute('href')).toBe(LINK);
    expect(screen.getByRole('link', { name: 'Diagnostics' }).getAttribute('href')).toBe('/admin/diagnostics');
    expect(screen.getByRole('link', { name: 'Schemas' }).getAttribute('href')).toBe('/schemas');
  });
});
