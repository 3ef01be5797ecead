// @vitest-environment jsdom
// The Example Gallery against a stand-in API: cards with dataset size and the Synthetic badge, the
// search, and every message of spec section 8's Examples list (refused reply vs no reply).

import { fireEvent, screen, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { account, fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, renderInShell, storeToken } from '../../test-support/page-test';
import { EXAMPLES, SAMPLES } from './example-fixtures.test-data';
import { EXAMPLE_MESSAGES } from './example-messages';
import { ExamplesPage } from './examples-page';

cleanBrowserAfterEach();

const CATEGORIES = [
  {
    id: 'financial',
    name: 'Financial',
    label: 'Financial Applications',
    app_problems: [
      {
        id: 'stock-price-prediction',
        name: 'Stock Price Prediction',
        workspace: 'development',
        description: '',
        useCases: [],
      },
      {
        id: 'fraud-detection',
        name: 'Fraud Detection',
        workspace: 'development',
        description: '',
        useCases: [],
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
        name: 'Brain Tumor or Cancer Detection',
        workspace: 'developmentbio',
        description: '',
        useCases: [],
      },
    ],
  },
];

type Routes = Parameters<typeof fakeApi>[0];
function api(over: Routes = {}, signedIn = true) {
  if (signedIn) storeToken();
  return fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/examples': () => ({ body: { success: true, data: EXAMPLES } }),
    'GET /api/samples': () => ({ body: { success: true, data: SAMPLES } }),
    'GET /api/application-categories/all': () => ({ body: { success: true, data: CATEGORIES } }),
    ...over,
  });
}

function renderGallery() {
  return renderInShell('/examples', <Route path="/examples" element={<ExamplesPage />} />, { toasts: true });
}

/** The gallery is shown and the signed-in user (GET /users/me) has arrived. */
async function signedIn(calls: { path: string }[]) {
  await screen.findByRole('heading', { name: 'Fraud Detection Example' });
  await vi.waitFor(() => expect(calls.some((c) => c.path === '/api/users/me')).toBe(true));
  await new Promise((resolve) => setTimeout(resolve, 0));
}

const card = async (name: string) =>
  within((await screen.findByRole('heading', { name })).closest('article')!);
const click = async (example: string, button: string) =>
  fireEvent.click((await card(example)).getByRole('button', { name: button }));

describe('the Example Gallery', () => {
  it('shows the sections, each card with its dataset, rows and the Synthetic badge, and searches', async () => {
    api({}, false);
    renderGallery();
    expect(await screen.findByRole('heading', { name: 'Financial Applications' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Bioinformatics Applications' })).toBeTruthy();
    const fraud = await card('Fraud Detection Example');
    expect(fraud.getByText(/5,000 rows/)).toBeTruthy();
    expect(fraud.getByText('Synthetic')).toBeTruthy();
    expect((await card('Stock Price Prediction Example')).queryByText('Synthetic')).toBeNull();
    fireEvent.change(screen.getByPlaceholderText('Search Examples...'), { target: { value: 'brain' } });
    expect(screen.queryByRole('heading', { name: 'Financial Applications' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Brain Tumor Example' })).toBeTruthy();
  });

  it('logged out: Start and Copy say to log in and open the login dialog, calling nothing', async () => {
    const calls = api({}, false);
    renderGallery();
    await click('Stock Price Prediction Example', 'Start');
    expect(await screen.findByText('Please login to Start Stock Price Prediction Example')).toBeTruthy();
    expect(await screen.findByRole('dialog', {}, { timeout: 10_000 })).toBeTruthy();
    await click('Fraud Detection Example', 'Copy to profile');
    expect(await screen.findByText(EXAMPLE_MESSAGES.loginToCopy)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('says the category data is not loaded when GET /application-categories/all failed', async () => {
    api({
      'GET /api/application-categories/all': () => ({ status: 500, body: { success: false, detail: 'x' } }),
    });
    renderGallery();
    await screen.findByText(account.name, { exact: false }).catch(() => undefined);
    await click('Fraud Detection Example', 'Start');
    expect(await screen.findByText(EXAMPLE_MESSAGES.categoriesNotLoaded)).toBeTruthy();
  });

  it('starts an example: creates it from the example app_data and opens its workspace (brain tumor: developmentbio)', async () => {
    const calls = api({
      'POST /api/applications/create-from-example': ({ body }) => ({
        body: {
          success: true,
          message: 'Application created successfully',
          data: {
            id: 41,
            app_name: (body as { app_name: string }).app_name,
            app_problem: 'x',
            app_problem_id: 'brain-tumor',
          },
        },
      }),
    });
    renderGallery();
    await signedIn(calls);
    await click('Brain Tumor Example', 'Start');
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/developmentbio/brain-tumor-or-cancer-detection/41/brain-tumor-example',
    );
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      app_problem_id: 'brain-tumor',
      app_name: 'Brain Tumor Example',
      user_id: account.id,
      app_data: EXAMPLES[2]!.app_data,
    });
  });

  it("a refused start says 'Failed to start example'; an unreachable server the other text", async () => {
    let reachable = true;
    const calls = api({
      'POST /api/applications/create-from-example': () => {
        if (!reachable) throw new TypeError('Failed to fetch');
        return { status: 400, body: { success: false, detail: 'Invalid application data' } };
      },
    });
    renderGallery();
    await signedIn(calls);
    await click('Fraud Detection Example', 'Start');
    expect(await screen.findByText(EXAMPLE_MESSAGES.startRefused)).toBeTruthy();
    reachable = false;
    await click('Fraud Detection Example', 'Start');
    expect(await screen.findByText(EXAMPLE_MESSAGES.startError)).toBeTruthy();
  });

  it('copies to the profile with a success toast; refused and unreachable copies have their texts', async () => {
    let mode: 'ok' | 'refused' | 'down' = 'ok';
    const calls = api({
      'POST /api/applications/copy-to-user': () => {
        if (mode === 'down') throw new TypeError('Failed to fetch');
        if (mode === 'refused') return { status: 404, body: { success: false, detail: 'Not Found' } };
        return {
          body: {
            success: true,
            data: {
              id: 9,
              app_name: 'Fraud Detection Example',
              app_problem: 'Fraud Detection',
              app_problem_id: 'fraud-detection',
            },
          },
        };
      },
    });
    renderGallery();
    await signedIn(calls);
    await click('Fraud Detection Example', 'Copy to profile');
    expect(await screen.findByText('"Fraud Detection Example" was copied to your profile.')).toBeTruthy();
    mode = 'refused';
    await click('Fraud Detection Example', 'Copy to profile');
    expect(await screen.findByText(EXAMPLE_MESSAGES.copyRefused)).toBeTruthy();
    mode = 'down';
    await click('Fraud Detection Example', 'Copy to profile');
    expect(await screen.findByText(EXAMPLE_MESSAGES.copyError)).toBeTruthy();
  });

  it("copies the example's app_data to the clipboard, and says so when the clipboard refuses", async () => {
    api({}, false);
    const writeText = vi.fn().mockResolvedValueOnce(undefined).mockRejectedValueOnce(new Error('denied'));
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderGallery();
    await click(
      'Stock Price Prediction Example',
      'Copy to clipboard: the app data of Stock Price Prediction Example',
    );
    expect(await screen.findByText(/copied to the clipboard/)).toBeTruthy();
    expect(JSON.parse(writeText.mock.calls[0]![0] as string)).toEqual(EXAMPLES[0]!.app_data);
    await click(
      'Stock Price Prediction Example',
      'Copy to clipboard: the app data of Stock Price Prediction Example',
    );
    expect(await screen.findByText(EXAMPLE_MESSAGES.clipboardFailed)).toBeTruthy();
  });
});
