// @vitest-environment jsdom
// The dialog 'Select Application or Create New': the user's applications grouped Brain Tumor /
// Financial, the Create New form's required fields (engine rules 'create-application'), problems
// depending on the category, the server's refusal in red, and success opening the workspace.

import { fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { account, fakeApi, type Call } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken, Where } from '../../test-support/page-test';
import { AuthProvider } from '../../session/auth-context';
import { ApplicationsBrowser } from './applications-browser';

const summary = (id: number, name: string, problem: { id: string; name: string; workspace: string }) => ({
  id,
  app_name: name,
  app_problem_id: problem.id,
  app_problem: problem,
  category: { id: 'financial', name: 'Financial' },
  user_id: 7,
  status: 'active',
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T10:00:00.000Z',
});
const problem = (id: string, name: string, workspace = 'development') => ({
  id,
  name,
  workspace,
  description: `${name} description`,
  useCases: [],
});
const CATEGORIES = [
  {
    id: 'financial',
    name: 'Financial',
    label: 'Financial Applications',
    app_problems: [
      problem('stock-price-prediction', 'Stock Price Prediction'),
      problem('fraud-detection', 'Fraud Detection'),
    ],
  },
  {
    id: 'bioinformatics',
    name: 'Bioinformatics',
    label: 'Bioinformatics Applications',
    app_problems: [problem('brain-tumor', 'Brain Tumor', 'developmentbio')],
  },
];

beforeEach(storeToken);
cleanBrowserAfterEach();

async function openDialog(
  create: Parameters<typeof fakeApi>[0][string],
): Promise<{ calls: Call[]; dialog: HTMLElement }> {
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/applications/7/all': () => ({
      body: {
        success: true,
        data: [
          summary(2, 'Glioma scans', { id: 'brain-tumor', name: 'Brain Tumor', workspace: 'developmentbio' }),
          summary(1, 'Tech stocks', {
            id: 'stock-price-prediction',
            name: 'Stock Price Prediction',
            workspace: 'development',
          }),
        ],
      },
    }),
    'GET /api/application-categories/all': () => ({ body: { success: true, data: CATEGORIES } }),
    'POST /api/applications/create-blank': create,
  });
  render(
    <AuthProvider>
      <MemoryRouter initialEntries={['/profile']}>
        <Routes>
          <Route path="/profile" element={<ApplicationsBrowser />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>
    </AuthProvider>,
  );
  await screen.findByText('Tech stocks');
  fireEvent.click(screen.getByRole('button', { name: 'Create Application' }));
  const dialog = screen.getByRole('dialog', { name: 'Select Application or Create New' });
  await within(dialog).findByRole('option', { name: 'Financial' });
  return { calls, dialog };
}

const field = (dialog: HTMLElement, name: string) =>
  within(dialog).getByLabelText(name) as HTMLInputElement | HTMLSelectElement;

describe('CreateApplicationDialog', () => {
  it('groups the user applications, requires every field and refuses the call without name or problem', async () => {
    const { calls, dialog } = await openDialog(() => ({ body: {} }));
    const groups = within(dialog).getByRole('region', { name: 'Your Applications' });
    expect(
      within(groups)
        .getAllByRole('heading', { level: 4 })
        .map((h) => h.textContent),
    ).toEqual(['Brain Tumor Applications', 'Financial Applications']);
    expect(within(groups).getByText('App problem: Brain Tumor')).toBeTruthy();
    expect(within(groups).getAllByText('Updated 3/2/2026')).toHaveLength(2);
    expect(document.activeElement).toBe(field(dialog, 'Application Name'));

    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getAllByText('This field is required')).toHaveLength(3);
    expect(within(dialog).getByRole('alert').textContent).toBe('Application name or problem ID is missing');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('offers the problems of the chosen category and shows the server refusal in red', async () => {
    const { calls, dialog } = await openDialog(() => ({
      status: 400,
      body: {
        success: false,
        detail: 'Application name must not exceed 100 characters',
        errors: [{ field: '/app_name', message: 'Application name must not exceed 100 characters' }],
      },
    }));
    const problemSelect = field(dialog, 'Application Problem') as HTMLSelectElement;
    expect(problemSelect.disabled).toBe(true);
    fireEvent.change(field(dialog, 'Application Category'), { target: { value: 'bioinformatics' } });
    expect([...problemSelect.options].map((o) => o.text).slice(1)).toEqual(['Brain Tumor']);
    fireEvent.change(field(dialog, 'Application Category'), { target: { value: 'financial' } });
    expect([...problemSelect.options].map((o) => o.text).slice(1)).toEqual([
      'Stock Price Prediction',
      'Fraud Detection',
    ]);
    fireEvent.change(problemSelect, { target: { value: 'fraud-detection' } });
    fireEvent.change(field(dialog, 'Application Name'), { target: { value: '  Card checks  ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toBe(
      'Create application failed: Application name must not exceed 100 characters',
    );
    expect(alert.className).toBe('form-error');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      app_name: 'Card checks',
      user_id: 7,
      app_problem_id: 'fraud-detection',
      status: 'active',
    });
  });

  it('opens the new application in its workspace (lower case, hyphens)', async () => {
    const { dialog } = await openDialog(() => ({
      body: {
        success: true,
        message: 'Application created successfully',
        data: {
          id: 41,
          app_name: 'My Brain Scans',
          app_problem: 'Brain Tumor',
          app_problem_id: 'brain-tumor',
        },
      },
    }));
    fireEvent.change(field(dialog, 'Application Name'), { target: { value: 'My Brain Scans' } });
    fireEvent.change(field(dialog, 'Application Category'), { target: { value: 'bioinformatics' } });
    fireEvent.change(field(dialog, 'Application Problem'), { target: { value: 'brain-tumor' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/developmentbio/brain-tumor/41/my-brain-scans',
    );
  });

  it('closes with Escape and opens an existing application from the left side', async () => {
    const { dialog } = await openDialog(() => ({ body: {} }));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Create Application' }));
    const again = screen.getByRole('dialog');
    expect(again).not.toBe(dialog);
    fireEvent.click(within(again).getByRole('button', { name: /Tech stocks/ }));
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/development/stock-price-prediction/1/tech-stocks',
    );
  });
});
