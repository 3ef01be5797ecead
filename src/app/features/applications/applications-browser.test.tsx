// @vitest-environment jsdom
// The dashboard's applications browser against a stand-in API: default order id descending, sorting
// per column, the search by id or name, Show 5/10/20/All, the First + 4 + Last pagination window,
// the brain tumor tab, the grid view, opening an application, and the delete flow with its timers.

import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { account, fakeApi, type Call } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken, Where } from '../../test-support/page-test';
import { AuthProvider } from '../../session/auth-context';
import type { ApplicationSummary } from '../../api/applications';
import { ApplicationsBrowser } from './applications-browser';

const STOCK = { id: 'stock-price-prediction', name: 'Stock Price Prediction', workspace: 'development' };
const FRAUD = { id: 'fraud-detection', name: 'Fraud Detection', workspace: 'development' };
const TUMOR = { id: 'brain-tumor', name: 'Brain Tumor', workspace: 'developmentbio' };

function app(id: number, name: string, problem = STOCK): ApplicationSummary {
  const day = String(id).padStart(2, '0');
  return {
    id,
    app_name: name,
    app_problem_id: problem.id,
    app_problem: problem,
    category:
      problem === TUMOR
        ? { id: 'bioinformatics', name: 'Bioinformatics' }
        : { id: 'financial', name: 'Financial' },
    user_id: 7,
    status: 'active',
    created_at: `2026-01-${day}T12:00:00.000Z`,
    updated_at: `2026-02-${day}T12:00:00.000Z`,
  };
}

/** Applications 1..n named 'App n' (one in three a fraud detection), and one brain tumor app (id 28). */
const many = (n: number) => [
  ...Array.from({ length: n }, (_, i) => app(i + 1, `App ${i + 1}`, i % 3 === 0 ? FRAUD : STOCK)),
  app(28, 'Glioma scans', TUMOR),
];

beforeEach(storeToken);
cleanBrowserAfterEach();

function renderBrowser(
  list: () => ApplicationSummary[] | { status: number; body: unknown },
  routes: Parameters<typeof fakeApi>[0] = {},
): Call[] {
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/applications/7/all': () => {
      const found = list();
      return Array.isArray(found) ? { body: { success: true, data: found } } : found;
    },
    ...routes,
  });
  render(
    <AuthProvider>
      <MemoryRouter initialEntries={['/profile']}>
        <Routes>
          <Route path="/profile" element={<ApplicationsBrowser title="My Applications" />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </AuthProvider>,
  );
  return calls;
}

/** The Application ID column of the shown rows, top to bottom. */
const shownIds = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[0].textContent);

const header = (name: string) => screen.getByRole('button', { name: new RegExp(`^${name}`) });

describe('ApplicationsBrowser', () => {
  it('lists the financial applications id descending, five a page, and sorts per column both ways', async () => {
    renderBrowser(() => many(12));
    await screen.findByText('App 12');
    expect(shownIds()).toEqual(['12', '11', '10', '9', '8']);
    expect(screen.queryByText('Glioma scans')).toBeNull();
    const idHeader = screen.getByRole('columnheader', { name: /Application ID/ });
    expect(idHeader.getAttribute('aria-sort')).toBe('descending');

    fireEvent.click(header('Application ID'));
    expect(shownIds()).toEqual(['1', '2', '3', '4', '5']);
    expect(idHeader.getAttribute('aria-sort')).toBe('ascending');
    fireEvent.click(header('Application ID'));
    expect(shownIds()).toEqual(['12', '11', '10', '9', '8']);

    // Names sort as text, both ways; problems group Fraud Detection before Stock Price Prediction.
    fireEvent.click(header('Application Name'));
    expect(shownIds()).toEqual(['1', '10', '11', '12', '2']);
    fireEvent.click(header('Application Name'));
    expect(shownIds()).toEqual(['9', '8', '7', '6', '5']);
    fireEvent.click(header('Application Problem'));
    const problems = screen
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[1].textContent);
    expect(problems).toEqual(Array(4).fill('Fraud Detection').concat('Stock Price Prediction'));
    fireEvent.click(header('Created Date'));
    expect(shownIds()).toEqual(['1', '2', '3', '4', '5']);
    fireEvent.click(header('Updated Date'));
    fireEvent.click(header('Updated Date'));
    expect(shownIds()).toEqual(['12', '11', '10', '9', '8']);
    // Actions is a column of menus, not a sort key.
    expect(screen.getByRole('columnheader', { name: 'Actions' }).querySelector('button')).toBeNull();
  });

  it('searches by id or name, case-insensitive, and says when nothing matches', async () => {
    renderBrowser(() => many(12));
    await screen.findByText('App 12');
    const search = screen.getByPlaceholderText('Search Application by ID or Name');
    fireEvent.change(search, { target: { value: 'app 1' } });
    expect(shownIds()).toEqual(['12', '11', '10', '1']);
    fireEvent.change(search, { target: { value: '7' } });
    expect(shownIds()).toEqual(['7']);
    fireEvent.change(search, { target: { value: 'GLIOMA' } });
    expect(screen.getByText('No applications found')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Brain Tumor application' }));
    expect(shownIds()).toEqual(['28']);
  });

  it('offers Show 5, 10, 20 and All, and pages with First, a window of four numbers and Last', async () => {
    renderBrowser(() => many(27));
    await screen.findByText('App 27');
    const show = screen.getByRole('combobox', { name: 'Show' });
    expect([...(show as HTMLSelectElement).options].map((o) => o.text)).toEqual(['5', '10', '20', 'All']);
    const pages = () =>
      within(screen.getByRole('navigation', { name: 'Pagination' }))
        .getAllByRole('button')
        .map((b) => b.textContent);
    expect(pages()).toEqual(['First', '1', '2', '3', '4', 'Last']);
    expect(screen.getByText('Showing 1–5 of 27')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Last' }));
    expect(pages()).toEqual(['First', '3', '4', '5', '6', 'Last']);
    expect(shownIds()).toEqual(['2', '1']);
    expect(screen.getByRole('button', { name: 'Page 6' }).getAttribute('aria-current')).toBe('page');
    fireEvent.click(screen.getByRole('button', { name: 'Page 4' }));
    expect(pages()).toEqual(['First', '3', '4', '5', '6', 'Last']);
    expect(shownIds()).toEqual(['12', '11', '10', '9', '8']);
    fireEvent.click(screen.getByRole('button', { name: 'First' }));
    expect(shownIds()[0]).toBe('27');

    fireEvent.change(show, { target: { value: '10' } });
    expect(shownIds()).toHaveLength(10);
    expect(pages()).toEqual(['First', '1', '2', '3', 'Last']);
    fireEvent.change(show, { target: { value: '20' } });
    expect(shownIds()).toHaveLength(20);
    fireEvent.change(show, { target: { value: '-1' } });
    expect(shownIds()).toHaveLength(27);
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).toBeNull();
  });

  it('shows cards in the grid view; a card opens the detail by click or by Enter, a row by click', async () => {
    renderBrowser(() => many(6));
    await screen.findByText('App 6');
    fireEvent.click(screen.getByRole('button', { name: 'Grid' }));
    expect(screen.queryByRole('table')).toBeNull();
    const cards = screen.getAllByRole('listitem');
    expect(cards.map((card) => within(card).getByRole('heading').textContent)).toEqual([
      'App 6',
      'App 5',
      'App 4',
      'App 3',
      'App 2',
    ]);
    fireEvent.keyDown(cards[1], { key: 'Enter' });
    expect(screen.getByTestId('where').textContent).toBe('/applications/5');
  });

  it('opens an application when its row is clicked', async () => {
    renderBrowser(() => many(3));
    await screen.findByText('App 3');
    fireEvent.click(within(screen.getAllByRole('row')[2]).getAllByRole('cell')[1]);
    expect(screen.getByTestId('where').textContent).toBe('/applications/2');
  });

  it("says 'Get applications failed' with the server's detail when the list cannot be loaded", async () => {
    renderBrowser(() => ({ status: 503, body: { success: false, detail: 'Database unavailable' } }));
    expect(await screen.findByText('Get applications failed: Database unavailable')).toBeTruthy();
  });

  it('deletes after the confirm dialog, behind the overlay; the banner hides after 5 s and the list is fetched again', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let apps = many(3);
    let release: () => void = () => undefined;
    const calls = renderBrowser(() => apps, {
      'DELETE /api/applications/3/delete-by-user/7': () =>
        new Promise((resolve) => {
          release = () => {
            apps = apps.filter((a) => a.id !== 3);
            resolve({ body: { success: true, message: 'Application deleted' } });
          };
        }),
    });
    await screen.findByText('App 3');
    const lists = () => calls.filter((c) => c.path === '/api/applications/7/all').length;
    expect(lists()).toBe(1);

    // 'No, cancel' leaves everything as it was.
    fireEvent.click(screen.getByRole('button', { name: 'Actions for App 3' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete' }));
    fireEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'No, cancel' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Actions for App 3' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('button', { name: "Yes, I'm sure" }));
    expect(await screen.findByText('Deleting Your Appication...')).toBeTruthy();
    await act(async () => release());
    expect(await screen.findByText('The Application has been successfully deleted.')).toBeTruthy();
    expect(screen.queryByText('Deleting Your Appication...')).toBeNull();
    expect(screen.queryByText('App 3')).toBeNull();

    await act(() => vi.advanceTimersByTimeAsync(4900));
    expect(screen.getByText('The Application has been successfully deleted.')).toBeTruthy();
    expect(lists()).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(200));
    expect(screen.queryByText('The Application has been successfully deleted.')).toBeNull();
    expect(lists()).toBe(2);
    expect(shownIds()).toEqual(['2', '1']);
  });

  it('says the deletion failed in a red banner that hides after 5 s, and keeps the application', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderBrowser(() => many(2), {
      'DELETE /api/applications/2/delete-by-user/7': () => ({
        status: 500,
        body: { success: false, detail: 'disk full' },
      }),
    });
    await screen.findByText('App 2');
    fireEvent.click(screen.getByRole('button', { name: 'Actions for App 2' }));
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete' }));
    fireEvent.click(screen.getByRole('button', { name: "Yes, I'm sure" }));
    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toBe('Failed to delete application. Please try again later.');
    expect(screen.getByText('App 2')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(5100));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
