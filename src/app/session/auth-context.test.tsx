// @vitest-environment jsdom
// The account's time zone is the one dates are shown in: a browser that never visited Settings (an
// empty store, the browser's own zone) shows dates in the zone the account saved, once signed in.
import { render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../format/dates';
import { storedTimeZone, USER_TIMEZONE_KEY } from '../format/timezones';
import { account, fakeApi } from '../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken } from '../test-support/page-test';
import { AuthProvider, useAuth } from './auth-context';

cleanBrowserAfterEach();
beforeEach(storeToken);

const AT = '2026-03-01T23:30:00.000Z';

function UpdatedAt() {
  const { user } = useAuth();
  return <p data-testid="updated">{user ? formatTimestamp(AT) : 'signed out'}</p>;
}

describe('the signed-in account and its time zone', () => {
  it.each([
    ['Asia/Tokyo', '3/2/2026, 8:30:00 AM'],
    ['America/New_York', '3/1/2026, 6:30:00 PM'],
  ])('an account saved with %s shows dates there, in a browser that stored no zone', async (zone, shown) => {
    expect(localStorage.getItem(USER_TIMEZONE_KEY)).toBeNull();
    fakeApi({
      'GET /api/users/me': () => ({ body: { success: true, data: { ...account, provided_timezone: zone } } }),
    });
    render(
      <AuthProvider>
        <UpdatedAt />
      </AuthProvider>,
    );
    await waitFor(() => expect(screen.getByTestId('updated').textContent).not.toBe('signed out'));
    expect(screen.getByTestId('updated').textContent).toBe(shown);
    expect(storedTimeZone()).toBe(zone);
  });
});
