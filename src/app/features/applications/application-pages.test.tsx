// @vitest-environment jsdom
// The application detail (name, problem, outputs table or 'No outputs found', 'Apps' back) and the
// workspace it opens; an application that cannot be loaded sends both to /error/404. A data router, as
// in app.tsx (the workspace's leave guard needs one).

import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { account, fakeApi } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken, Where } from '../../test-support/page-test';
import { AuthProvider } from '../../session/auth-context';
import { WorkspacePage } from '../workspace/workspace-page';
import { ApplicationDetailPage } from './application-detail-page';

const detail = {
  id: 5,
  app_name: 'Tech stocks',
  app_problem_id: 'stock-price-prediction',
  app_problem: { id: 'stock-price-prediction', name: 'Stock Price Prediction', workspace: 'development' },
  category: { id: 'financial', name: 'Financial' },
  user_id: 7,
  status: 'active',
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T10:00:00.000Z',
  app_data: {},
};

beforeEach(storeToken);
cleanBrowserAfterEach();

function renderAt(path: string, outputs: unknown[] = []) {
  fakeApi({
    'GET /api/applications/5/detail': () => ({ body: { success: true, data: detail } }),
    'GET /api/applications/6/detail': () => ({ status: 404, body: { success: false, detail: 'Not Found' } }),
    'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: outputs } }),
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
  });
  const router = createMemoryRouter(
    [
      { path: '/applications/:appId', element: <ApplicationDetailPage /> },
      { path: '/development/:problemId/:appId/:appName', element: <WorkspacePage /> },
      { path: '*', element: <Where /> },
    ],
    { initialEntries: [path] },
  );
  render(
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>,
  );
}

describe('application pages', () => {
  it("shows the detail with 'No outputs found', and 'Apps' goes back to the dashboard", async () => {
    renderAt('/applications/5');
    expect(await screen.findByText('Tech stocks')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Application Detail' })).toBeTruthy();
    expect(screen.getByText('Stock Price Prediction')).toBeTruthy();
    expect(await screen.findByText('No outputs found')).toBeTruthy();
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual([
      'Output Id',
      'Status',
      'Created Date',
      'Completed',
      'Model Type',
      'Actions',
    ]);
    expect(screen.getByRole('link', { name: 'Open workspace' }).getAttribute('href')).toBe(
      '/development/stock-price-prediction/5/tech-stocks',
    );
    fireEvent.click(screen.getByRole('button', { name: /Apps/ }));
    expect(screen.getByTestId('where').textContent).toBe('/profile');
  });

  it('lists the outputs with their status', async () => {
    renderAt('/applications/5', [
      {
        id: 31,
        name: 'run 1',
        status: 'Completed',
        created_at: '2026-03-03T10:00:00.000Z',
        completed_at: '2026-03-03T10:05:00.000Z',
        application_id: 5,
      },
    ]);
    expect(await screen.findByText('31')).toBeTruthy();
    expect(screen.getByTestId('job-status').textContent).toBe('Completed');
    expect(screen.getByRole('link', { name: 'View Details' }).getAttribute('href')).toBe(
      '/applications/5/outputs/31',
    );
  });

  it('sends an application that cannot be loaded to /error/404, from the detail and the workspace', async () => {
    renderAt('/applications/6');
    expect((await screen.findByTestId('where')).textContent).toBe('/error/404');
    cleanup();
    renderAt('/development/stock-price-prediction/6/x');
    expect((await screen.findByTestId('where')).textContent).toBe('/error/404');
    cleanup();
    renderAt('/applications/not-a-number');
    expect((await screen.findByTestId('where')).textContent).toBe('/error/404');
  });

  it('opens the workspace of the application it loaded, on its Dataset tab', async () => {
    renderAt('/development/stock-price-prediction/5/tech-stocks');
    expect(await screen.findByRole('heading', { name: 'Tech stocks' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Dataset' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('button', { name: 'Run the Application' })).toBeTruthy();
  });
});
