// @vitest-environment jsdom
// The app's data router (app.tsx): pages still render by path, and a page that fails to render still
// reaches the app's ErrorBoundary ('Something went wrong!') rather than the router's own error screen.

import { render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from './app';
import { fakeApi } from './test-support/fake-api';
import { cleanBrowserAfterEach } from './test-support/page-test';

vi.mock('./features/contact/contact-page', () => ({
  ContactPage: () => {
    throw new Error('contact page broke');
  },
}));

cleanBrowserAfterEach();
beforeEach(() => {
  fakeApi({});
});

describe('App', () => {
  it('renders the page of the current path inside the shell', async () => {
    window.history.pushState({}, '', '/error/404');
    render(<App />);
    expect(await screen.findByRole('link', { name: 'Examples' })).toBeTruthy();
    expect(await screen.findByText('Looks like our services are currently offline')).toBeTruthy();
  });

  it("shows 'Something went wrong!' when a page fails to render", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    localStorage.setItem('ACCESS_TOKEN', 'token');
    fakeApi({
      'GET /api/users/me': () => ({
        body: {
          success: true,
          data: {
            id: 7,
            name: 'ada',
            email: 'a@b.org',
            email_verified: true,
            is_approved: true,
            roles: ['user'],
          },
        },
      }),
    });
    window.history.pushState({}, '', '/contact');
    render(<App />);
    expect(await screen.findByRole('heading', { name: 'Something went wrong!' })).toBeTruthy();
  });
});
