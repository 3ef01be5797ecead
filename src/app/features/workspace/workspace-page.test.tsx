// @vitest-environment jsdom
// The workspace shell (issue #11, spec workspace.md sections 2, 4, 8, 9) on the real stock price
// prediction schema: load failure, tabs with markers and the outputs badge, the blocked Pipeline, the Model
// tab's Save Changes, Save and Run with their messages, the running banner (until the output is final) and
// the leave guard.
// The Dataset and Outputs tabs are their modules' own (tested there); small stand-ins take their place here.

import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData, getFormState, mapJobRequest, type AppData } from '../../../engine';
import { browserRegistry } from '../../../renderers/browser-registry';
import { ToastProvider } from '../../components/toasts';
import { account, fakeApi, type Call } from '../../test-support/fake-api';
import { cleanBrowserAfterEach, storeToken, Where } from '../../test-support/page-test';
import { AuthProvider } from '../../session/auth-context';
import { OUTPUTS_POLL_MS } from '../../api/output-status';
import { FILL_REQUIRED } from '../../api/use-run-application';
import { PipelineTab } from './pipeline-tab';
import { WorkspacePage } from './workspace-page';
import { BLOCKED_WARNING_MS, LEAVE_PROMPT, RUNNING_BANNER } from './workspace-rules';
import type { DatasetTabProps, OutputsTabProps } from './workspace-types';

const stock = browserRegistry().getProblem('stock-price-prediction');
const example = createExampleAppData(stock);

// The dataset module's stand-in: the example's sample, parsed (its real rows and columns).
vi.mock('./dataset/csv-table', () => ({
  useDataset: () => ({
    status: 'ready',
    parsed: {
      columns: example.context.columns,
      rowCount: example.context.rowCount,
      droppedRows: 0,
      preview: [],
    },
    error: null,
    pendingFile: null,
    commit: (appData: AppData) => Promise.resolve(appData),
  }),
  DatasetTab: (props: DatasetTabProps) => (
    <div data-testid="dataset-standin">
      <button type="button" onClick={() => props.onChange({ ...props.appData, note: 'edited' })}>
        Edit dataset
      </button>
      <button type="button" onClick={() => props.onSaved(props.appData)}>
        Save dataset
      </button>
    </div>
  ),
}));
vi.mock('./outputs', () => ({
  OutputsTab: (props: OutputsTabProps) => (
    <div data-testid="outputs-standin" data-running={String(props.running)} data-refresh={props.refreshKey}>
      <button type="button" onClick={() => props.onCountChange(9)}>
        Report count
      </button>
      <button
        type="button"
        onClick={() =>
          props.onRunAgain({
            ...props.appData,
            model_configurations: { ...props.appData.model_configurations, epochs: 20 },
          })
        }
      >
        Run again
      </button>
    </div>
  ),
}));
// React Flow needs a layout engine; the diagram is the renderers' own tested component.
vi.mock('../../../renderers', async (original) => ({
  ...(await original<typeof import('../../../renderers')>()),
  PipelineFlow: () => <div data-testid="pipeline-flow" />,
}));

beforeEach(storeToken);
cleanBrowserAfterEach();

const PATH = '/development/stock-price-prediction/5/my-stocks';
const app = (appData: unknown) => ({
  id: 5,
  app_name: 'My stocks',
  app_problem_id: 'stock-price-prediction',
  app_problem: { id: 'stock-price-prediction', name: stock.name, workspace: 'development' },
  category: { id: 'financial', name: 'Financial' },
  user_id: 7,
  status: 'active',
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-02T10:00:00.000Z',
  app_data: appData,
});
const request = mapJobRequest(stock, example.appData, { applicationId: 5, userId: 7 });

type Routes = Parameters<typeof fakeApi>[0];
function openWorkspace(appData: unknown, routes: Routes = {}, path = PATH) {
  const calls = fakeApi({
    'GET /api/users/me': () => ({ body: { success: true, data: account } }),
    'GET /api/applications/5/detail': () => ({ body: { success: true, data: app(appData) } }),
    'GET /api/application-outputs/5/count': () => ({
      body: { success: true, data: { total: 3, ongoing: 0 } },
    }),
    'PUT /api/applications/update-app-data': (call) => ({
      body: { success: true, data: app((call.body as { app_data: unknown }).app_data) },
    }),
    ...routes,
  });
  const router = createMemoryRouter(
    [
      { path: '/development/:problemId/:appId/:appName', element: <WorkspacePage /> },
      { path: '/developmentbio/:problemId/:appId/:appName', element: <WorkspacePage /> },
      { path: '*', element: <Where /> },
    ],
    { initialEntries: [path] },
  );
  render(
    <ToastProvider>
      <AuthProvider>
        <RouterProvider router={router} />
      </AuthProvider>
    </ToastProvider>,
  );
  return { calls, router };
}

const tab = (name: string | RegExp) => screen.getByRole('tab', { name });
const selected = () => screen.getAllByRole('tab').find((t) => t.getAttribute('aria-selected') === 'true')!;
/** Waits for the workspace and the signed-in user (Run and Save need the user). */
async function ready(calls: Call[]) {
  await screen.findByRole('tab', { name: 'Dataset' });
  await waitFor(() => expect(calls.some((c) => c.path === '/api/users/me')).toBe(true));
  await act(() => new Promise((resolve) => setTimeout(resolve, 20)));
}

describe('the workspace page', () => {
  it('toasts the load failure and goes to /error/404', async () => {
    openWorkspace(null, {
      'GET /api/applications/5/detail': () => ({
        status: 404,
        body: { success: false, detail: 'Application not found' },
      }),
    });
    expect((await screen.findByTestId('where')).textContent).toBe('/error/404');
    expect(screen.getByRole('alert').textContent).toBe('Get application failed: Application not found');
  });

  it('opens the brain tumor workspace with its own Dataset tab, chosen by the schema', async () => {
    const brain = browserRegistry().getProblem('brain-tumor');
    fakeApi({
      'GET /api/users/me': () => ({ body: { success: true, data: account } }),
      'GET /api/applications/5/detail': () => ({
        body: {
          success: true,
          data: {
            ...app({}),
            app_problem_id: 'brain-tumor',
            app_problem: { id: 'brain-tumor', name: brain.name, workspace: 'developmentbio' },
          },
        },
      }),
    });
    const router = createMemoryRouter(
      [{ path: '/developmentbio/:problemId/:appId/:appName', element: <WorkspacePage /> }],
      {
        initialEntries: ['/developmentbio/brain-tumor/5/scan'],
      },
    );
    render(
      <AuthProvider>
        <RouterProvider router={router} />
      </AuthProvider>,
    );
    // A new application (no dataset yet) opens on the Train sub-tab of the brain tumor Dataset tab.
    const train = await screen.findByRole('tab', { name: 'Train Brain Tumor' });
    expect(train.getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tab', { name: 'Predict Brain Tumor' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Dataset' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.queryByTestId('dataset-standin')).toBeNull();
    expect(screen.queryByText(/comes with issue #13/)).toBeNull();
  });

  it('opens on Dataset with red markers on the incomplete tabs and the outputs count on Outputs', async () => {
    openWorkspace({});
    await screen.findByRole('tab', { name: 'Dataset' });
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Dataset',
      'Model Configurations',
      'Pipeline',
      expect.stringMatching(/^Outputs/),
    ]);
    expect(selected().textContent).toBe('Dataset');
    expect(screen.getByRole('tabpanel')).toBeTruthy();
    expect(screen.getByTestId('tab-marker-dataset')).toBeTruthy();
    expect(screen.getByTestId('tab-marker-model')).toBeTruthy();
    expect((await screen.findByTestId('outputs-count')).textContent).toBe('3');
    expect(tab('Outputs 3')).toBeTruthy();
    // Outputs is always reachable, and its list's own total replaces the count.
    fireEvent.click(tab('Outputs 3'));
    expect(screen.getByTestId('outputs-standin')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Report count' }));
    expect(screen.getByTestId('outputs-count').textContent).toBe('9');
  });

  it('has no markers when the dataset and configuration are complete', async () => {
    openWorkspace(example.appData);
    await screen.findByRole('tab', { name: 'Dataset' });
    expect(screen.queryByTestId('tab-marker-dataset')).toBeNull();
    expect(screen.queryByTestId('tab-marker-model')).toBeNull();
  });

  it('blocks the Pipeline while incomplete, with the warning for 2.5 s', async () => {
    openWorkspace({});
    await screen.findByRole('tab', { name: 'Dataset' });
    vi.useFakeTimers();
    fireEvent.click(tab('Pipeline'));
    expect(screen.getAllByRole('alert')[0]!.textContent).toBe(stock.platform.messages.pipelineBlocked);
    expect(selected().textContent).toBe('Dataset');
    act(() => vi.advanceTimersByTime(BLOCKED_WARNING_MS - 100));
    expect(screen.queryByText(stock.platform.messages.pipelineBlocked)).not.toBeNull();
    act(() => vi.advanceTimersByTime(200));
    expect(screen.queryByText(stock.platform.messages.pipelineBlocked)).toBeNull();
  });

  it("after a blocked Pipeline, 'Fill missing at {step}' stays and opens the first incomplete tab", async () => {
    // The dataset is complete, the model configuration is not: step 2.
    openWorkspace({ ...example.appData, model_configurations: {} });
    await screen.findByRole('tab', { name: 'Dataset' });
    expect(screen.queryByRole('button', { name: /^Fill missing at/ })).toBeNull();
    vi.useFakeTimers();
    fireEvent.click(tab('Pipeline'));
    act(() => vi.advanceTimersByTime(BLOCKED_WARNING_MS + 100));
    expect(screen.getByText(stock.platform.messages.pipelineInvalid)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Fill missing at 2' }));
    expect(selected().textContent).toBe('Model Configurations');
    expect(screen.queryByRole('button', { name: /^Fill missing at/ })).toBeNull();
  });

  it("moves to the Model tab after the dataset's Save Changes and to the Pipeline after the model's", async () => {
    openWorkspace(example.appData);
    await screen.findByRole('tab', { name: 'Dataset' });
    fireEvent.click(screen.getByRole('button', { name: 'Save dataset' }));
    expect(selected().textContent).toBe('Model Configurations');
    fireEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(selected().textContent).toBe('Pipeline');
    expect(await screen.findByTestId('pipeline-flow')).toBeTruthy();
  });

  it('marks only the incomplete tab and draws the model sections with Save Changes', async () => {
    // Complete model, no dataset: the Dataset tab is marked, the Model tab draws its sections.
    openWorkspace({ model_configurations: example.appData.model_configurations });
    await screen.findByRole('tab', { name: 'Dataset' });
    expect(screen.getByTestId('tab-marker-dataset')).toBeTruthy();
    expect(screen.queryByTestId('tab-marker-model')).toBeNull();
    fireEvent.click(tab('Model Configurations'));
    expect(screen.queryByText(stock.platform.messages.wrongConfigurations)).toBeNull();
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeTruthy();
  });

  it("draws the Pipeline tab's diagram, with 'Fill missing at 1' opening the Dataset tab", () => {
    const state = getFormState(stock, { model_configurations: example.appData.model_configurations }, {});
    const onOpenTab = vi.fn();
    render(<PipelineTab problem={stock} appData={{}} context={{}} state={state} onOpenTab={onOpenTab} />);
    expect(screen.getByTestId('pipeline-flow')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Fill missing at 1' }));
    expect(onOpenTab).toHaveBeenCalledWith(0);
  });

  it("saves: 'Application is saved successfully!' with the pruned app_data, and the server's refusal", async () => {
    let refuse = false;
    const { calls } = openWorkspace(example.appData, {
      'PUT /api/applications/update-app-data': (call) =>
        refuse
          ? { status: 400, body: { success: false, detail: 'Invalid app_data' } }
          : { body: { success: true, data: app((call.body as { app_data: unknown }).app_data) } },
    });
    await ready(calls);
    fireEvent.click(screen.getByRole('button', { name: 'Save the Application' }));
    expect(await screen.findByText('Application is saved successfully!')).toBeTruthy();
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.body).toEqual({ application_id: 5, user_id: 7, app_data: example.appData });
    refuse = true;
    fireEvent.click(screen.getByRole('button', { name: 'Save the Application' }));
    expect(await screen.findByText('Failed to save the application! Invalid app_data')).toBeTruthy();
  });

  it('asks a visitor who is not signed in to log in, on Save and on Run', async () => {
    localStorage.clear();
    const { calls } = openWorkspace(example.appData);
    await screen.findByRole('tab', { name: 'Dataset' });
    fireEvent.click(screen.getByRole('button', { name: 'Save the Application' }));
    expect(await screen.findByText('Please login to save the application!')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Run the Application' }));
    expect(await screen.findByText('User is not logged in!')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT' || c.method === 'POST')).toBe(false);
  });

  it('refuses to run an incomplete application before saving or calling the server', async () => {
    const { calls } = openWorkspace({});
    await ready(calls);
    fireEvent.click(screen.getByRole('button', { name: 'Run the Application' }));
    expect(await screen.findByText(FILL_REQUIRED)).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT' || c.method === 'POST')).toBe(false);
  });

  it("shows the server's refusal of a run as 'Failed to execute the application! …'", async () => {
    const { calls } = openWorkspace(example.appData, {
      [`POST /api${request.path}`]: () => ({
        status: 400,
        body: { success: false, message: 'Failed to execute the application! Epochs must be at most 100' },
      }),
    });
    await ready(calls);
    fireEvent.click(screen.getByRole('button', { name: 'Run the Application' }));
    expect(
      await screen.findByText('Failed to execute the application! Epochs must be at most 100'),
    ).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Run the Application' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
    expect(screen.queryByTestId('running-banner')).toBeNull();
  });

  it("saves then runs: 'Application is running.' with 'Go to output tab', the banner and Run disabled until the output is final", async () => {
    let status = 'Ongoing';
    const { calls } = openWorkspace(example.appData, {
      [`POST /api${request.path}`]: () => ({
        status: 201,
        body: { success: true, message: 'Application is running.', data: { output_id: 77 } },
      }),
      'GET /api/application-outputs/77/detail': () => ({ body: { success: true, data: { id: 77, status } } }),
    });
    await ready(calls);
    await screen.findByTestId('outputs-count');
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fireEvent.click(screen.getByRole('button', { name: 'Run the Application' }));
    const toast = await screen.findByText('Application is running.');
    expect(calls.filter((c) => c.method !== 'GET').map((c) => c.method)).toEqual(['PUT', 'POST']);
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual(request.body);
    expect(screen.getByTestId('running-banner').textContent).toBe(RUNNING_BANNER);
    expect((screen.getByRole('button', { name: 'Run the Application' }) as HTMLButtonElement).disabled).toBe(
      true,
    );
    expect(screen.getByTestId('outputs-count').textContent).toBe('4');

    fireEvent.click(within(toast).getByRole('button', { name: 'Go to output tab' }));
    expect(selected().textContent).toMatch(/^Outputs/);
    expect(screen.getByTestId('outputs-standin').dataset.running).toBe('true');
    expect(screen.getByTestId('outputs-standin').dataset.refresh).toBe('1');

    // Still running after the spec's 9 s (a long training): the banner and the disabled button stay.
    await act(() => vi.advanceTimersByTimeAsync(OUTPUTS_POLL_MS * 6));
    expect(screen.queryByTestId('running-banner')).not.toBeNull();
    expect(
      calls.filter((c) => c.path === '/api/application-outputs/77/detail').length,
    ).toBeGreaterThanOrEqual(5);
    status = 'Completed';
    await act(() => vi.advanceTimersByTimeAsync(OUTPUTS_POLL_MS + 100));
    expect(screen.queryByTestId('running-banner')).toBeNull();
    expect((screen.getByRole('button', { name: 'Run the Application' }) as HTMLButtonElement).disabled).toBe(
      false,
    );
  });

  it('opens the Outputs tab from the running banner', async () => {
    const { calls } = openWorkspace(example.appData, {
      [`POST /api${request.path}`]: () => ({ status: 201, body: { success: true, data: { output_id: 77 } } }),
    });
    await ready(calls);
    fireEvent.click(screen.getByRole('button', { name: 'Run the Application' }));
    fireEvent.click(await screen.findByTestId('running-banner'));
    expect(selected().textContent).toMatch(/^Outputs/);
  });

  it('saves and runs the settings of "Run again with these settings"', async () => {
    const { calls } = openWorkspace(example.appData, {
      [`POST /api${request.path}`]: () => ({ status: 201, body: { success: true, data: { output_id: 78 } } }),
    });
    await ready(calls);
    fireEvent.click(tab(/^Outputs/));
    fireEvent.click(screen.getByRole('button', { name: 'Run again' }));
    expect(await screen.findByText('Application is running.')).toBeTruthy();
    const put = calls.find((c) => c.method === 'PUT')!;
    expect((put.body as { app_data: AppData }).app_data.model_configurations?.epochs).toBe(20);
    expect(calls.filter((c) => c.method !== 'GET').map((c) => c.method)).toEqual(['PUT', 'POST']);
  });

  it('asks before leaving with unsaved changes (in-app and closing the tab) until saved', async () => {
    const { calls, router } = openWorkspace(example.appData);
    await ready(calls);
    const confirm = vi.fn(() => false);
    vi.stubGlobal('confirm', confirm);
    const unload = () => {
      const event = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(event);
      return event.defaultPrevented;
    };
    // Nothing changed yet: leaving does not ask.
    expect(unload()).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Edit dataset' }));
    await act(() => router.navigate('/profile'));
    expect(confirm).toHaveBeenCalledWith(LEAVE_PROMPT);
    expect(router.state.location.pathname).toBe(PATH);
    expect(unload()).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Save the Application' }));
    await screen.findByText('Application is saved successfully!');
    // The guard's listener goes in an effect after the saved state is drawn (a busy machine ran the check between).
    await waitFor(() => expect(unload()).toBe(false));
    confirm.mockClear();
    await act(() => router.navigate('/profile'));
    expect(confirm).not.toHaveBeenCalled();
    expect(screen.getByTestId('where').textContent).toBe('/profile');
  });

  it('leaves after the prompt is confirmed', async () => {
    const { calls, router } = openWorkspace(example.appData);
    await ready(calls);
    vi.stubGlobal(
      'confirm',
      vi.fn(() => true),
    );
    fireEvent.click(screen.getByRole('button', { name: 'Edit dataset' }));
    await act(() => router.navigate('/profile'));
    expect(await screen.findByTestId('where')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/profile');
  });
});
