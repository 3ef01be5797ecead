// @vitest-environment jsdom
// The verification and approval pages: approval polling (on load and every 15 s), the spec's
// status and e-mail prompt messages, the 5 s move on from /email-verified, and the mm:ss timer.

import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test-support/fake-api';
import { STORED_EMAIL_KEY } from '../../session/stored-email';
import { EMAIL_VERIFIED_REDIRECT_MS, EmailVerifiedPage } from './email-verified-page';
import { formatElapsed } from './use-elapsed';
import { APPROVAL_POLL_MS, WAITING_FOR_ADMIN, WaitingApprovalPage } from './waiting-approval-page';

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

function renderAt(path: string) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/waiting-admin-approval" element={<WaitingApprovalPage />} />
        <Route path="/email-verified" element={<EmailVerifiedPage />} />
        <Route path="/approved-account" element={<p>page approved</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe('/waiting-admin-approval', () => {
  it('asks on load and every 15 s; verified and approved forgets the e-mail and goes to /approved-account', async () => {
    localStorage.setItem(STORED_EMAIL_KEY, 'ada@example.org');
    let approved = false;
    const calls = fakeApi({
      'GET /api/users/approval-status': () => ({
        body: { success: true, extra_data: { email_verified: true, is_approved: approved } },
      }),
    });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderAt('/waiting-admin-approval');
    expect(await screen.findByText(WAITING_FOR_ADMIN)).toBeTruthy();
    const asked = () => calls.filter((c) => c.path.startsWith('/api/users/approval-status')).length;
    const first = asked();
    expect(calls[0]!.path).toBe('/api/users/approval-status?email=ada%40example.org');
    await act(() => vi.advanceTimersByTimeAsync(APPROVAL_POLL_MS - 1000));
    expect(asked()).toBe(first);
    approved = true;
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(await screen.findByText('page approved')).toBeTruthy();
    expect(localStorage.getItem(STORED_EMAIL_KEY)).toBeNull();
  });

  it("asks for the e-mail when none is stored and refuses a malformed one with 'Invalid email format.'", async () => {
    const calls = fakeApi({
      'GET /api/users/approval-status': () => ({
        body: { success: true, extra_data: { email_verified: true, is_approved: false } },
      }),
    });
    renderAt('/waiting-admin-approval');
    fireEvent.change(document.querySelector('input[name=email]')!, { target: { value: 'not-an-address' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check status' }));
    expect(await screen.findByText('Invalid email format.')).toBeTruthy();
    expect(calls).toHaveLength(0);
    fireEvent.change(document.querySelector('input[name=email]')!, { target: { value: 'ada@example.org' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check status' }));
    expect(await screen.findByText(WAITING_FOR_ADMIN)).toBeTruthy();
    expect(localStorage.getItem(STORED_EMAIL_KEY)).toBe('ada@example.org');
  });

  it('says it cannot read the saved e-mail when storage is refused', async () => {
    fakeApi({});
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError');
    });
    renderAt('/waiting-admin-approval');
    expect(
      await screen.findByText('Cannot access saved e-mail. Please enter your email manually.'),
    ).toBeTruthy();
    vi.restoreAllMocks();
  });
});

it("says 'Failed to save email. Try again.' when the browser refuses to store it", async () => {
  fakeApi({});
  renderAt('/waiting-admin-approval');
  vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
    throw new DOMException('full', 'QuotaExceededError');
  });
  fireEvent.change(document.querySelector('input[name=email]')!, { target: { value: 'ada@example.org' } });
  fireEvent.click(screen.getByRole('button', { name: 'Check status' }));
  expect(await screen.findByText('Failed to save email. Try again.')).toBeTruthy();
  vi.restoreAllMocks();
});

describe('/email-verified', () => {
  it("shows 'Email Verified' and moves to /waiting-admin-approval after 5 s", async () => {
    fakeApi({
      'GET /api/users/approval-status': () => ({
        body: { success: true, extra_data: { email_verified: true, is_approved: false } },
      }),
    });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderAt('/email-verified');
    expect(screen.getByRole('heading', { name: 'Email Verified' })).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(EMAIL_VERIFIED_REDIRECT_MS - 100));
    expect(screen.getByRole('heading', { name: 'Email Verified' })).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.getByRole('heading', { name: 'Awaiting Admin Approval' })).toBeTruthy();
  });

  it('says an unknown, used or expired link is not valid, and stays', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderAt('/email-verified?status=invalid');
    expect(screen.getByRole('heading', { name: 'Link not valid' })).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(EMAIL_VERIFIED_REDIRECT_MS + 100));
    expect(screen.getByRole('heading', { name: 'Link not valid' })).toBeTruthy();
  });
});

it('formats the waiting timer as mm:ss', () => {
  expect(formatElapsed(0)).toBe('00:00');
  expect(formatElapsed(75)).toBe('01:15');
  expect(formatElapsed(3600)).toBe('60:00');
});
