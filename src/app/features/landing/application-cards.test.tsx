// @vitest-environment jsdom
// The landing application cards (spec section 2): tabs per category, the registry's description and
// five use cases per card, 'Coming Soon' (disabled) until the categories are loaded, Start Now opening
// the login modal for a visitor, and for a signed-in user 'Creating ...' then the workspace, or
// 'Create application failed' with the server's detail on the card.

import { fireEvent, screen, within } from '@testing-library/react';
import { Route } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { account, fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, renderInShell, storeToken } from '../../test-support/page-test';
import { ApplicationCards, defaultAppName } from './application-cards';

cleanBrowserAfterEach();

const fiveUseCases = (name: string) => [1, 2, 3, 4, 5].map((n) => `${name} use ${n}`);
const categories = [
  {
    id: 'financial',
    name: 'Financial',
    label: 'Financial Applications',
    app_problems: [
      {
        id: 'stock-price-prediction',
        name: 'Stock Price Prediction',
        workspace: 'development',
        description: 'Predict prices.',
        useCases: fiveUseCases('stock'),
      },
      {
        id: 'fraud-detection',
        name: 'Fraud Detection',
        workspace: 'development',
        description: 'Find fraud.',
        useCases: fiveUseCases('fraud'),
      },
    ],
  },
  {
    id: 'bioinformatics',
    name: 'Bioinformatics',
    label: 'Bioinformatics Applications',
    app_problems: [
      {
        id: 'brain-tumor',
        name: 'Brain Tumor',
        workspace: 'developmentbio',
        description: 'Classify MRI scans.',
        useCases: fiveUseCases('brain'),
      },
    ],
  },
];

function renderCards(routes: Parameters<typeof fakeApi>[0], signedIn: boolean) {
  if (signedIn) storeToken();
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/oauth2/providers': () => ({ body: { success: true, data: { providers: [] } } }),
    ...routes,
  });
  renderInShell('/', <Route path="/" element={<ApplicationCards />} />);
  return calls;
}

const loaded = {
  'GET /api/application-categories/all': () => ({ body: { success: true, data: categories } }),
};
const card = (name: string) => screen.getByRole('heading', { name }).closest('li')!;

describe('the landing application cards', () => {
  it("shows disabled 'Coming Soon' cards while the categories are not loaded", () => {
    renderCards({ 'GET /api/application-categories/all': () => new Promise(() => undefined) }, false);
    const buttons = screen.getAllByRole('button', { name: 'Coming Soon' }) as HTMLButtonElement[];
    expect(buttons.length).toBeGreaterThan(0);
    expect(buttons.every((button) => button.disabled)).toBe(true);
    expect(screen.queryByRole('button', { name: 'Start Now' })).toBeNull();
  });

  it('shows the financial cards first with description and five use cases, and switches tabs', async () => {
    renderCards(loaded, false);
    const tabs = await screen.findAllByRole('tab');
    expect(tabs.map((tab) => tab.textContent)).toEqual([
      'Financial Applications',
      'Bioinformatics Applications',
    ]);
    expect(tabs[0]!.getAttribute('aria-selected')).toBe('true');
    const stock = card('Stock Price Prediction');
    expect(within(stock).getByText('Predict prices.')).toBeTruthy();
    expect(within(stock).getAllByRole('listitem')).toHaveLength(5);
    expect(screen.queryByRole('heading', { name: 'Brain Tumor' })).toBeNull();

    fireEvent.keyDown(tabs[0]!, { key: 'ArrowRight' });
    expect(tabs[1]!.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(tabs[1]);
    expect(within(card('Brain Tumor')).getByRole('button', { name: 'Start Now' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Stock Price Prediction' })).toBeNull();
    fireEvent.click(tabs[0]!);
    expect(card('Fraud Detection')).toBeTruthy();
  });

  it("says 'Get application categories failed' when they cannot be loaded", async () => {
    renderCards(
      {
        'GET /api/application-categories/all': () => ({
          status: 503,
          body: { success: false, detail: 'Down' },
        }),
      },
      false,
    );
    expect((await screen.findByRole('alert')).textContent).toContain(
      'Get application categories failed: Down',
    );
  });

  it('opens the login modal when a visitor starts a card', async () => {
    const calls = renderCards(loaded, false);
    await screen.findAllByRole('tab');
    fireEvent.click(within(card('Stock Price Prediction')).getByRole('button', { name: 'Start Now' }));
    expect(await screen.findByRole('dialog', { name: 'Login' }, { timeout: 5000 })).toBeTruthy();
    expect(calls.some((call) => call.path.startsWith('/api/applications'))).toBe(false);
  });

  it("creates the application ('Creating ...') and opens its workspace when signed in", async () => {
    let release = () => undefined as void;
    const calls = renderCards(
      {
        ...loaded,
        'POST /api/applications/create-blank': () =>
          new Promise((resolve) => {
            release = () =>
              resolve({
                body: {
                  success: true,
                  message: 'Application created successfully',
                  data: {
                    id: 41,
                    app_name: 'Brain Tumor 2026-11-23',
                    app_problem: 'Brain Tumor',
                    app_problem_id: 'brain-tumor',
                  },
                },
              });
          }),
      },
      true,
    );
    const tabs = await screen.findAllByRole('tab');
    fireEvent.click(tabs[1]!);
    const start = within(card('Brain Tumor')).getByRole('button', { name: 'Start Now' });
    await vi.waitFor(() => expect((start as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(start);
    expect((await screen.findByRole('button', { name: 'Creating ...' })).hasAttribute('disabled')).toBe(true);
    release();
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/developmentbio/brain-tumor/41/brain-tumor-2026-11-23',
    );
    const create = calls.find((call) => call.path === '/api/applications/create-blank')!;
    expect(create.body).toMatchObject({
      user_id: account.id,
      app_problem_id: 'brain-tumor',
      status: 'active',
    });
    expect((create.body as { app_name: string }).app_name).toMatch(/^Brain Tumor \d{4}-\d{2}-\d{2}$/);
  });

  it("shows 'Create application failed' and the server's detail on the card", async () => {
    renderCards(
      {
        ...loaded,
        'POST /api/applications/create-blank': () => ({
          status: 400,
          body: { success: false, detail: 'Application name or problem ID is missing' },
        }),
      },
      true,
    );
    await screen.findAllByRole('tab');
    const fraud = card('Fraud Detection');
    const start = within(fraud).getByRole('button', { name: 'Start Now' }) as HTMLButtonElement;
    await vi.waitFor(() => expect(start.disabled).toBe(false));
    fireEvent.click(start);
    expect((await within(fraud).findByRole('alert')).textContent).toBe(
      'Create application failed: Application name or problem ID is missing',
    );
    expect(within(fraud).getByRole('button', { name: 'Start Now' })).toBeTruthy();
  });

  it("names a new application after its problem and today's date in the user's timezone", () => {
    const now = new Date('2026-11-23T23:30:00Z');
    expect(defaultAppName('Stock Price Prediction', now, 'UTC')).toBe('Stock Price Prediction 2026-11-23');
    expect(defaultAppName('Stock Price Prediction', now, 'Asia/Tokyo')).toBe(
      'Stock Price Prediction 2026-11-24',
    );
  });
});
