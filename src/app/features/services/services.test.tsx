// @vitest-environment jsdom
// The services pages (spec section 2): the sidebar's links, a card's 'Under Development' alert that
// hides itself after 5 s (spec section 9), the home page's showcase and Recent Project box (the
// user's three latest applications, or a sign-in prompt), Outputs, and the 404 page for an unknown
// service.

import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { Route } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { account, fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, renderInShell, storeToken } from '../../test-support/page-test';
import { ServicePage } from './service-page';
import { ServicesHomePage } from './services-home-page';
import { ServicesLayout } from './services-layout';

cleanBrowserAfterEach();

const application = (id: number) => ({
  id,
  app_name: `App ${id}`,
  app_problem_id: 'stock-price-prediction',
  app_problem: { id: 'stock-price-prediction', name: 'Stock Price Prediction', workspace: 'development' },
  category: { id: 'financial', name: 'Financial' },
  user_id: account.id,
  status: 'active',
  created_at: '2026-11-20T10:00:00Z',
  updated_at: '2026-11-21T10:00:00Z',
});

function renderServices(path: string, signedIn = false) {
  if (signedIn) storeToken();
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    [`GET /api/applications/${account.id}/all`]: () => ({
      body: { success: true, data: [3, 9, 5, 7].map(application) },
    }),
  });
  renderInShell(
    path,
    <Route path="/services" element={<ServicesLayout />}>
      <Route index element={<ServicesHomePage />} />
      <Route path=":service" element={<ServicePage />} />
    </Route>,
  );
  return calls;
}

describe('the services pages', () => {
  it('lists the spec’s sidebar links', () => {
    renderServices('/services');
    const sidebar = screen.getByRole('navigation', { name: 'Services' });
    expect(
      within(sidebar)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual([
      'Home',
      'Financial Service',
      'Drug Discovery Service',
      'Materials Service',
      'Power System Service',
      'Optimization Service',
      'Other Algorithms',
      'Outputs',
    ]);
    expect(within(sidebar).getByRole('link', { name: 'Home' }).getAttribute('aria-current')).toBe('page');
  });

  it("shows 'Under Development' when a card is clicked, and hides it after 5 s", () => {
    vi.useFakeTimers();
    renderServices('/services/finance');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Financial Service');
    const names = screen.getAllByRole('button').map((button) => button.querySelector('strong')?.textContent);
    expect(names.filter(Boolean)).toEqual([
      'Regression',
      'Stock Price Prediction',
      'Risk Assessment',
      'Portfolio Optimization',
      'Fraud Detection',
      'Money Laundry',
    ]);
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: /Money Laundry/ }));
    expect(screen.getByRole('alert').textContent).toContain('Under Development');
    act(() => vi.advanceTimersByTime(4900));
    expect(screen.queryByRole('alert')).not.toBeNull();
    act(() => vi.advanceTimersByTime(100));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks a visitor to sign in for recent projects, and shows the three showcase cards', async () => {
    renderServices('/services');
    const showcase = screen.getByRole('list', { name: 'Showcase' });
    expect(
      within(showcase)
        .getAllByRole('link')
        .map((link) => link.querySelector('strong')?.textContent),
    ).toEqual(['Quantum Optimization', 'Stock Price Prediction', 'Drug Molecule Prediction']);
    const recent = screen.getByRole('complementary', { name: 'Recent Project' });
    expect(recent.textContent).toContain('Sign in to view your recent projects.');
    fireEvent.click(within(recent).getByRole('button', { name: 'Login' }));
    expect(await screen.findByRole('dialog', { name: 'Login' }, { timeout: 5000 })).toBeTruthy();
  });

  it("lists a signed-in user's three latest applications, each opening its detail", async () => {
    renderServices('/services', true);
    const recent = screen.getByRole('complementary', { name: 'Recent Project' });
    const links = await within(recent).findAllByRole('link');
    expect(links.map((link) => link.querySelector('strong')?.textContent)).toEqual([
      'App 9',
      'App 7',
      'App 5',
    ]);
    expect(links[0]!.getAttribute('href')).toBe('/applications/9');
  });

  it('lists every application on Outputs, and shows the 404 page for an unknown service', async () => {
    renderServices('/services/outputs', true);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Outputs');
    expect(
      (await screen.findAllByRole('link', { name: /^App \d/ })).map((link) => link.getAttribute('href')),
    ).toEqual(['/applications/9', '/applications/7', '/applications/5', '/applications/3']);
    cleanup();
    renderServices('/services/teleportation');
    expect(screen.getByText('Looks like our services are currently offline')).toBeTruthy();
  });
});
