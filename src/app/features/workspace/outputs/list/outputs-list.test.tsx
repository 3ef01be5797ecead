// @vitest-environment jsdom
// The workspace's Outputs tab (issue #11, spec section 2): list columns and badges, search rules, the
// empty text, refresh while running, live progress and Stop, the detail view's sub-tabs and 'All
// Outputs', "Run again with these settings", the configuration diff and the pinned comparison.
// The API is faked at the fetch boundary.

import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData, setPointer, type AppData } from '../../../../../engine';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { account, fakeApi, type Call } from '../../../../test-support/fake-api';
import { AuthProvider } from '../../../../session/auth-context';
import { completedOutput } from '../../../../test-support/output-fixtures';
import { cleanBrowserAfterEach, storeToken } from '../../../../test-support/page-test';
import type { OutputSummary } from '../../../../api/applications';
import type { OutputDetail } from '../../../../api/outputs';
import type { OutputsTabProps } from '../../workspace-types';
import { NO_OUTPUTS } from '../../../../api/output-status';
import { OutputsTab } from '../index';
import { deleteQuestion } from '../delete-output-button';
import {
  compareOutputs,
  configurationChanges,
  SAME_CONFIGURATION,
  searchOutputs,
  SPLITS_DIFFER,
} from '../list-rules';

// ApexCharts needs a real layout engine; the stand-in shows what it was asked to draw.
vi.mock('react-apexcharts', () => ({
  default: (props: { type: string }) => <div data-testid="apex" data-type={props.type} />,
}));

beforeEach(storeToken);
cleanBrowserAfterEach();
afterEach(() => vi.useRealTimers());

const problem = browserRegistry().getProblem('stock-price-prediction');
const appData = createExampleAppData(problem).appData;
/** A copy of the example's app_data with one value changed. */
function changedAt(pointer: string, value: unknown): AppData {
  const copy = structuredClone(appData);
  setPointer(copy, pointer, value);
  return copy;
}

function summary(id: number, status: string, over: Partial<OutputSummary> = {}): OutputSummary {
  return {
    id,
    name: `Tech stocks #${id}`,
    status,
    created_at: '2026-03-03T10:00:00.000Z',
    completed_at: status === 'Completed' || status === 'Failed' ? '2026-03-03T10:05:00.000Z' : null,
    application_id: 5,
    trained_model_type: 'LSTM',
    execution_time: 12.345,
    ...over,
  } as OutputSummary;
}

function detail(id: number, over: Partial<OutputDetail> = {}): OutputDetail {
  return completedOutput({
    id,
    name: `Tech stocks #${id}`,
    app_data: appData as Record<string, unknown>,
    ...over,
  });
}

type Routes = Parameters<typeof fakeApi>[0];

function setup(list: OutputSummary[], props: Partial<OutputsTabProps> = {}, routes: Routes = {}) {
  const calls = fakeApi({
    'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: list } }),
    ...routes,
  });
  const onCountChange = vi.fn();
  const onRunAgain = vi.fn();
  const all: OutputsTabProps = {
    problem,
    applicationId: 5,
    appData,
    running: false,
    refreshKey: 0,
    onCountChange,
    onRunAgain,
    ...props,
  };
  const view = render(<OutputsTab {...all} />);
  const rerender = (next: Partial<OutputsTabProps>) => view.rerender(<OutputsTab {...all} {...next} />);
  return { calls, onCountChange, onRunAgain, rerender };
}

const listCalls = (calls: Call[]) => calls.filter((c) => c.path === '/api/application-outputs/5/all').length;
const rowIds = () => screen.queryAllByTestId('output-row').map((row) => row.dataset.outputId);

/** The output's stream: the given events, then it stays open until the view leaves. */
function stubStream(outputId: number, events: { type: string; payload: Record<string, unknown> }[]) {
  const fallback = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    if (!String(input).endsWith(`/application-outputs/${outputId}/stream`)) return fallback(input, init);
    const at = '2026-03-03T10:00:00.000Z';
    const text = events
      .map((event, i) => `data: ${JSON.stringify({ seq: i + 1, ...event, created_at: at })}\n\n`)
      .join('');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        init?.signal?.addEventListener('abort', () =>
          controller.error(new DOMException('aborted', 'AbortError')),
        );
      },
    });
    return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
  });
}

describe('outputs list', () => {
  it('shows the columns, the four badges, the completed date or N/A, and reports the total', async () => {
    const { onCountChange } = setup([
      summary(41, 'Completed'),
      summary(42, 'Failed'),
      summary(43, 'Manual Stop', { completed_at: '2026-03-03T10:06:00.000Z' }),
      summary(44, 'queued'),
    ]);
    await waitFor(() => expect(rowIds()).toEqual(['41', '42', '43', '44']));
    const table = screen.getByTestId('outputs-table');
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['Pin', 'Output Id', 'Status', 'Created Date', 'Completed', 'Actions']);
    const badge = (id: string) => within(rowOf(id)).getByTestId('job-status');
    expect(badge('41').className).toContain('completed');
    expect(badge('41').textContent).toBe('Completed');
    expect(badge('42').className).toContain('failed');
    expect(badge('43').className).toContain('stopped');
    expect(badge('44').className).toContain('ongoing');
    expect(badge('44').textContent).toContain('Ongoing');
    expect(badge('44').querySelector('.spinner')).not.toBeNull();
    const cells = (id: string) =>
      within(rowOf(id))
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells('41')[4]).toMatch(/2026/);
    expect(cells('44')[4]).toBe('N/A');
    expect(within(rowOf('41')).getByRole('button', { name: 'View Details' })).toBeTruthy();
    expect(onCountChange).toHaveBeenLastCalledWith(4);
  });

  it("says 'No outputs found' for an application without outputs", async () => {
    setup([]);
    expect(await screen.findByText(NO_OUTPUTS)).toBeTruthy();
  });

  it('searches by exact id, else by name or id substring; empty input restores the list', async () => {
    setup([
      summary(41, 'Completed'),
      summary(141, 'Completed'),
      summary(7, 'Completed', { name: 'Alpha run #7' }),
    ]);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    const search = screen.getByRole('searchbox', { name: 'Search outputs' });
    fireEvent.change(search, { target: { value: '41' } });
    expect(rowIds()).toEqual(['41']);
    fireEvent.change(search, { target: { value: 'alpha' } });
    expect(rowIds()).toEqual(['7']);
    fireEvent.change(search, { target: { value: '14' } });
    expect(rowIds()).toEqual(['141']);
    fireEvent.change(search, { target: { value: 'nothing like it' } });
    expect(rowIds()).toEqual([]);
    expect(screen.getByText(NO_OUTPUTS)).toBeTruthy();
    fireEvent.change(search, { target: { value: '' } });
    expect(rowIds()).toEqual(['41', '141', '7']);
  });

  it('reads the list again when a run starts, every 2 s while running, and stops when nothing runs', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { calls, rerender } = setup([summary(41, 'Completed')]);
    await waitFor(() => expect(rowIds()).toEqual(['41']));
    expect(listCalls(calls)).toBe(1);
    rerender({ refreshKey: 1, running: true });
    await waitFor(() => expect(listCalls(calls)).toBe(2));
    await act(() => vi.advanceTimersByTimeAsync(2000));
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(listCalls(calls)).toBe(4);
    rerender({ refreshKey: 1, running: false });
    await act(() => vi.advanceTimersByTimeAsync(6000));
    expect(listCalls(calls)).toBe(4);
  });

  it('does not read the list again when only the count callback changes', async () => {
    const { calls, rerender } = setup([summary(41, 'Completed')]);
    await waitFor(() => expect(rowIds()).toEqual(['41']));
    const latest = vi.fn();
    rerender({ onCountChange: latest });
    rerender({ refreshKey: 2, onCountChange: latest });
    await waitFor(() => expect(latest).toHaveBeenCalledWith(1));
    expect(listCalls(calls)).toBe(2);
  });

  it('keeps polling while an output is Ongoing, with no run flag', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { calls } = setup([summary(44, 'running')]);
    await waitFor(() => expect(rowIds()).toEqual(['44']));
    expect(listCalls(calls)).toBe(1);
    await act(() => vi.advanceTimersByTimeAsync(4000));
    expect(listCalls(calls)).toBe(3);
  });

  it('shows a running output live (epoch, loss) and stops it', async () => {
    let stopped = false;
    const { calls } = setup(
      [],
      {},
      {
        'GET /api/application-outputs/5/all': () => ({
          body: { success: true, data: [summary(44, stopped ? 'Manual Stop' : 'running')] },
        }),
        'POST /api/stock-price-prediction/stop-job/44': () => {
          stopped = true;
          return { status: 202, body: { success: true } };
        },
      },
    );
    stubStream(44, [
      { type: 'progress', payload: { percent: 40, stage: 'Epoch 2/5' } },
      { type: 'metric', payload: { name: 'train_loss', value: 0.123456, step: 2 } },
    ]);
    await waitFor(() => expect(screen.getByTestId('live-progress').textContent).toContain('Epoch 2/5'));
    await waitFor(() =>
      expect(screen.getByTestId('live-step').textContent).toBe('Epoch 2 · train_loss 0.1235'),
    );
    fireEvent.click(within(rowOf('44')).getByRole('button', { name: 'Stop' }));
    expect(calls.some((c) => c.path.includes('/stop-job/'))).toBe(false);
    fireEvent.click(within(rowOf('44')).getByRole('button', { name: 'Yes, stop' }));
    await waitFor(() =>
      expect(within(rowOf('44')).getByTestId('job-status').textContent).toBe('Manual Stop'),
    );
    expect(
      calls.some((c) => c.method === 'POST' && c.path === '/api/stock-price-prediction/stop-job/44'),
    ).toBe(true);
    expect(screen.queryByTestId('live-progress')).toBeNull();
  });
});

function rowOf(id: string): HTMLElement {
  return screen.getAllByTestId('output-row').find((row) => row.dataset.outputId === id)!;
}

describe('output detail in the tab', () => {
  async function openDetail(current: AppData = appData, out: OutputDetail = detail(41)) {
    const setupResult = setup(
      [summary(41, 'Completed')],
      { appData: current },
      {
        'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: out } }),
      },
    );
    fireEvent.click(await screen.findByRole('button', { name: 'View Details' }));
    await screen.findByRole('tab', { name: 'Metrics' });
    return setupResult;
  }

  it('shows Metrics beside the baseline, the charts, the result logs, and All Outputs returns', async () => {
    await openDetail();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Metrics',
      'Visualization',
      'Result logs',
    ]);
    const table = screen.getByTestId('metrics-table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Metric', 'LSTM', 'Persistence']);
    expect(within(table).getByRole('row', { name: /^MSE 0.2500 0.3600/ })).toBeTruthy();
    expect(screen.getByTestId('execution-time').textContent).toBe('19.26 s');
    fireEvent.click(screen.getByRole('tab', { name: 'Visualization' }));
    expect(await within(screen.getByTestId('output-charts')).findAllByTestId('apex')).toHaveLength(1);
    fireEvent.click(screen.getByRole('tab', { name: 'Result logs' }));
    expect(screen.getByTestId('result-logs').textContent).toContain('Epoch 1/2 done');
    fireEvent.click(screen.getByRole('button', { name: 'All Outputs' }));
    await waitFor(() => expect(rowIds()).toEqual(['41']));
  });

  it('shows the status the detail read when All Outputs returns, not an older list read', async () => {
    // The list still answers 'running' (a read that left before the run ended); the detail says Completed.
    setup(
      [summary(45, 'running')],
      {},
      {
        'GET /api/application-outputs/45/detail': () => ({ body: { success: true, data: detail(45) } }),
      },
    );
    stubStream(45, []);
    fireEvent.click(await screen.findByRole('button', { name: 'View Details' }));
    await screen.findByRole('tab', { name: 'Metrics' });
    await waitFor(() => expect(screen.getByTestId('job-status').dataset.status).toBe('Completed'));
    fireEvent.click(screen.getByRole('button', { name: 'All Outputs' }));
    expect(within(rowOf('45')).getByTestId('job-status').dataset.status).toBe('Completed');
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(within(rowOf('45')).getByTestId('job-status').dataset.status).toBe('Completed');
  });

  it('deletes the output after asking, and the list no longer holds it', async () => {
    let list = [summary(41, 'Completed'), summary(42, 'Completed')];
    const { calls } = setup(
      list,
      {},
      {
        'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: list } }),
        'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
        'DELETE /api/application-outputs/41/delete': () => {
          list = list.filter((output) => output.id !== 41);
          return { body: { success: true, message: 'Output deleted successfully' } };
        },
      },
    );
    await waitFor(() => expect(rowIds()).toEqual(['41', '42']));
    fireEvent.click(within(rowOf('41')).getByRole('button', { name: 'View Details' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Output' }));
    expect(screen.getByRole('alert').textContent).toBe(deleteQuestion(41));
    fireEvent.click(screen.getByRole('button', { name: 'No, keep it' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Delete Output' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    await waitFor(() => expect(rowIds()).toEqual(['42']));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([
      '/api/application-outputs/41/delete',
    ]);
  });

  it("a refused delete says why and keeps the output's detail open", async () => {
    setup(
      [summary(41, 'Completed')],
      {},
      {
        'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
        'DELETE /api/application-outputs/41/delete': () => ({
          status: 404,
          body: { success: false, detail: 'Output not found' },
        }),
      },
    );
    fireEvent.click(await screen.findByRole('button', { name: 'View Details' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Delete Output' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    expect(await screen.findByText(/Output not found/)).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Metrics' })).toBeTruthy();
  });

  it('offers Model Inference for an output with a stored model, and says how many rows were predicted', async () => {
    const calls = fakeApi({
      'GET /api/users/me': () => ({ body: { success: true, data: account } }),
      'GET /api/application-outputs/5/all': () => ({
        body: { success: true, data: [summary(41, 'Completed')] },
      }),
      'GET /api/application-outputs/41/detail': () => ({
        body: { success: true, data: detail(41, { trained_model_path: 'models/41' }) },
      }),
      'POST /api/upload/ada_l/ada%40example.org': () => ({
        status: 201,
        body: { success: true, url: '/api/download/f.csv/ada_l/ada%40example.org' },
      }),
      // A forecaster reads 10 rows before its first prediction: 60 rows give 50 predictions.
      'POST /api/stock-price-prediction/inference/7/5': () => ({
        body: {
          success: true,
          data: { rows: 60, output_id: 41, actual: Array(50).fill(1), predicted: Array(50).fill(1.5) },
        },
      }),
    });
    const props: OutputsTabProps = {
      problem,
      applicationId: 5,
      appData,
      running: false,
      refreshKey: 0,
      onCountChange: vi.fn(),
      onRunAgain: vi.fn(),
    };
    render(
      <AuthProvider>
        <OutputsTab {...props} />
      </AuthProvider>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'View Details' }));
    fireEvent.click(await screen.findByRole('tab', { name: 'Model Inference' }));
    const csv = ['Date,Open,High,Low,Close', ...Array.from({ length: 60 }, (_, i) => `d${i},1,2,0.5,${i}`)];
    fireEvent.change(screen.getByTestId('inference-file'), {
      target: { files: [new File([csv.join('\n')], 'p.csv', { type: 'text/csv' })] },
    });
    await screen.findByText('Only showing 30 rows');
    fireEvent.click(screen.getByRole('button', { name: 'Start Inferencing' }));
    expect((await screen.findByTestId('inference-summary')).textContent).toBe(
      '50 predictions; the first 10 rows are the input window (the model of output #41).',
    );
    expect(screen.getByTestId('inference-result').querySelectorAll('tbody tr')).toHaveLength(50);
    expect(calls.some((c) => c.path === '/api/stock-price-prediction/inference/7/5')).toBe(true);
  });

  it('has no Model Inference for an output without a stored model', async () => {
    await openDetail();
    expect(screen.queryByRole('tab', { name: 'Model Inference' })).toBeNull();
  });

  it("runs again with the output's own settings", async () => {
    const { onRunAgain, rerender } = await openDetail();
    fireEvent.click(screen.getByRole('button', { name: 'Run again with these settings' }));
    expect(onRunAgain).toHaveBeenCalledWith(appData);
    // While the new run starts, a second one waits (like the top bar's Run).
    rerender({ running: true });
    const again = screen.getByRole('button', { name: 'Run again with these settings' });
    expect((again as HTMLButtonElement).disabled).toBe(true);
  });

  it('says when the configuration is the current one, and lists each change as from → to', async () => {
    await openDetail();
    expect(screen.getByTestId('config-diff').textContent).toContain(SAME_CONFIGURATION);
    cleanup();
    const epochs = (appData.model_configurations as { epochs: number }).epochs;
    const changed = changedAt('/model_configurations/epochs', epochs + 5);
    await openDetail(changed);
    expect(screen.getByTestId('config-diff').textContent).toContain(`Epochs: ${epochs} → ${epochs + 5}`);
  });
});

describe('comparing pinned outputs', () => {
  it('needs two pins, then shows their metrics side by side on the same split', async () => {
    setup(
      [summary(41, 'Completed'), summary(42, 'Completed')],
      {},
      {
        'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
        'GET /api/application-outputs/42/detail': () => ({
          body: {
            success: true,
            data: detail(42, { trained_model_type: 'GRU', metrics: { mse: 0.2, rmse: 0.45 } }),
          },
        }),
      },
    );
    await waitFor(() => expect(rowIds()).toHaveLength(2));
    const compare = screen.getByRole('button', { name: /^Compare( \(\d+\))?$/ });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 41 to compare' }));
    expect((compare as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 42 to compare' }));
    fireEvent.click(compare);
    const table = await screen.findByTestId('compare-table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Metric', '#41 LSTM', '#42 GRU']);
    expect(within(table).getByRole('row', { name: 'MSE 0.2500 0.2000' })).toBeTruthy();
    expect(screen.getByTestId('compare-split').textContent).toBe(
      'Same dataset and split: Apple and Google stock price, 100 rows used.',
    );
  });
});

describe('written analysis and comparison of pinned outputs', () => {
  it('Analyze Output needs one pinned Completed output, Compare Outputs two; each opens its overlay in the chosen register', async () => {
    const { calls } = setup(
      [summary(41, 'Completed'), summary(42, 'Completed'), summary(43, 'Failed')],
      {},
      {
        'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
        'GET /api/application-outputs/42/detail': () => ({ body: { success: true, data: detail(42) } }),
        'POST /api/output-analyzer/output-analyze': () => ({
          body: {
            success: true,
            data: {
              output_id: 41,
              message: {
                role: 'assistant',
                content: '# What Tech stocks #41 tells us\n\n## In short\n\nIt did well.',
              },
              created_at: '2026-03-03T10:00:00.000Z',
              register: 'non_technical',
              source: 'engine',
              note: null,
              report: {
                title: '',
                conclusion: [],
                insights: [],
                recommendations: [],
                caveats: [],
                definitions: [],
              },
            },
          },
        }),
      },
    );
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    const analyze = screen.getByRole('button', { name: 'Analyze Output' }) as HTMLButtonElement;
    const compare = screen.getByRole('button', { name: 'Compare Outputs' }) as HTMLButtonElement;
    expect([analyze.disabled, compare.disabled]).toEqual([true, true]);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 43 to compare' }));
    expect(analyze.disabled).toBe(true); // a Failed output has no report
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 43 to compare' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 41 to compare' }));
    expect([analyze.disabled, compare.disabled]).toEqual([false, true]);
    fireEvent.click(screen.getByRole('radio', { name: 'Non-Technical' }));
    fireEvent.click(analyze);
    const dialog = await screen.findByRole('dialog');
    expect((await within(dialog).findByTestId('written-analysis')).textContent).toContain('It did well.');
    expect(
      calls.some(
        (c) => c.path.includes('output_id=41') && c.path.includes('interpreted_type_is_technical=false'),
      ),
    ).toBe(true);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Back to outputs' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pin output 42 to compare' }));
    expect([analyze.disabled, compare.disabled]).toEqual([true, false]);
  });
});

describe('outputs rules', () => {
  it('searches exact ids before substrings', () => {
    const list = [summary(41, 'Completed'), summary(141, 'Completed')];
    expect(searchOutputs(list, ' 41 ').map((o) => o.id)).toEqual([41]);
    expect(searchOutputs(list, '1').map((o) => o.id)).toEqual([41, 141]);
    expect(searchOutputs(list, 'TECH').map((o) => o.id)).toEqual([41, 141]);
    expect(searchOutputs(list, '')).toBe(list);
  });

  it('labels configuration changes from the schema', () => {
    expect(configurationChanges(problem, appData, appData)).toEqual([]);
    const changed = changedAt('/model_configurations/epochs', 99);
    const [change] = configurationChanges(problem, appData, changed);
    expect(change).toMatchObject({ path: '/model_configurations/epochs', label: 'Epochs', to: '99' });
  });

  it("shows a changed option with the form's labels, not its stored value", () => {
    const pointer = '/model_configurations/quantum_device/quantum_noise_model';
    const ran = changedAt(pointer, 'fake_brisbane');
    const [change] = configurationChanges(problem, ran, changedAt(pointer, 'None'));
    expect(change).toMatchObject({ label: 'Noise Model', from: 'IBM Brisbane (snapshot)', to: 'None' });
  });

  it('flags outputs that ran on different datasets or splits', () => {
    const other = detail(42, { dataset: { ...detail(42).dataset!, sha256: 'cd' } });
    expect(compareOutputs(problem, [detail(41), detail(43)]).sameSplit).toBe(true);
    expect(compareOutputs(problem, [detail(41), other]).sameSplit).toBe(false);
    expect(SPLITS_DIFFER).toMatch(/not directly comparable/);
  });
});
