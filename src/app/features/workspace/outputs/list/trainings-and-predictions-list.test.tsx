// @vitest-environment jsdom
// The brain tumor Outputs tab (issue #13, spec section 2): columns, empty text, search, the selection
// rules (at most 2, predictions not selectable, the 300 ms comparison text), the Analyze and Compare
// overlays (Technical / Non-Technical, A+ / A-, Print, Escape, Back to outputs) and the output detail's
// tabs per result type with their empty texts. The API is faked at the fetch boundary.

import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createExampleAppData } from '../../../../../engine';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { fakeApi } from '../../../../test-support/fake-api';
import { completedOutput } from '../../../../test-support/output-fixtures';
import { cleanBrowserAfterEach, storeToken } from '../../../../test-support/page-test';
import type { OutputSummary } from '../../../../api/applications';
import type { OutputDetail } from '../../../../api/outputs';
import { OutputsTab } from '..';
import type { OutputsTabProps } from '../../workspace-types';
import { OUTPUTS_POLL_MS } from '../../../../api/output-status';
import { TOO_MANY_SELECTED, TWO_SELECTED } from '../report-rules';

vi.mock('react-apexcharts', () => ({
  default: (props: { type: string }) => <div data-testid="apex" data-type={props.type} />,
}));

beforeEach(storeToken);
cleanBrowserAfterEach();

const problem = browserRegistry().getProblem('brain-tumor');
const appData = createExampleAppData(problem).appData;

function summary(id: number, status: string, over: Record<string, unknown> = {}): OutputSummary {
  return {
    id,
    name: `MRI study #${id}`,
    status,
    created_at: '2026-03-03T10:00:00.000Z',
    completed_at: status === 'Completed' ? '2026-03-03T10:05:00.000Z' : null,
    application_id: 5,
    trained_model_type: 'densenet121',
    execution_time: 12.3,
    result_type: 'Training',
    ...over,
  } as OutputSummary;
}

const confusion = {
  type: 'confusion_matrix' as const,
  title: 'Confusion Matrix',
  label: 'scans',
  series: [
    { name: 'true meningioma', data: [3, 0, 0] },
    { name: 'true glioma', data: [2, 3, 0] },
    { name: 'true pituitary', data: [0, 0, 2] },
  ],
  categories: ['meningioma', 'glioma', 'pituitary'],
};

function trainingDetail(id: number, over: Partial<OutputDetail> = {}): OutputDetail {
  return completedOutput({
    id,
    name: `MRI study #${id}`,
    problem_id: 'brain-tumor',
    trained_model_type: 'densenet121',
    app_data: appData as Record<string, unknown>,
    metrics: { accuracy: 0.8, macro_f1: 0.78, precision_glioma: 0.85, recall_glioma: 0.8, f1_glioma: 0.82 },
    baseline: { name: 'Majority class', metrics: { accuracy: 0.5 } },
    charts: [confusion],
    dataset: {
      label: 'Sample Dataset 1 (2020-2024) (synthetic)',
      synthetic: true,
      sha256: 'ab',
      rows: 3064,
      rows_used: 100,
    },
    output_data: {
      result_type: 'Training',
      training_history: { loss: [1.2, 0.5], accuracy: [0.4, 0.8], val_accuracy: [0.3, 0.7] },
    } as unknown as OutputDetail['output_data'],
    ...over,
  });
}

function predictionDetail(id: number, over: Partial<OutputDetail> = {}): OutputDetail {
  return completedOutput({
    id,
    name: `MRI study #${id}`,
    problem_id: 'brain-tumor',
    trained_model_type: 'densenet121',
    metrics: {},
    baseline: null,
    charts: [],
    dataset: null,
    output_data: {
      result_type: 'Prediction',
      prediction: 'glioma',
      probabilities: { meningioma: 0.15, glioma: 0.8, pituitary: 0.05 },
      image: { name: 'glioma-1.png', kind: 'png' },
      model: { output_id: 41, model_name: 'densenet121' },
    } as unknown as OutputDetail['output_data'],
    ...over,
  });
}

type Routes = Parameters<typeof fakeApi>[0];
const detailRoute = (detail: OutputDetail): Routes => ({
  [`GET /api/application-outputs/${detail.id}/detail`]: () => ({ body: { success: true, data: detail } }),
});

function setup(list: OutputSummary[], routes: Routes = {}, props: Partial<OutputsTabProps> = {}) {
  const calls = fakeApi({
    'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: list } }),
    ...routes,
  });
  const onCountChange = vi.fn();
  render(
    <OutputsTab
      problem={problem}
      applicationId={5}
      appData={appData}
      running={false}
      refreshKey={0}
      onCountChange={onCountChange}
      onRunAgain={vi.fn()}
      {...props}
    />,
  );
  return { calls, onCountChange };
}

const rowOf = (id: number) =>
  screen.getAllByTestId('output-row').find((r) => r.dataset.outputId === String(id))!;
const box = (id: number) => screen.getByRole('checkbox', { name: `Select output ${id}` });
const button = (name: string) => screen.getByRole('button', { name });

describe('brain tumor outputs list', () => {
  it('is the tab a problem with a predict block gets, with its columns, N/A while Ongoing and the total', async () => {
    const { onCountChange } = setup([
      summary(41, 'Completed'),
      summary(42, 'running', { trained_model_type: 'QCNN' }),
      summary(43, 'Completed', { result_type: 'Prediction' }),
      summary(44, 'Completed', { result_type: undefined, trained_model_type: null }),
    ]);
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(4));
    const headers = within(screen.getByTestId('outputs-table'))
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual([
      'Select',
      'Output Id',
      'Status',
      'Created Date',
      'Completed',
      'Model Type',
      'Result Type',
    ]);
    const cells = (id: number) =>
      within(rowOf(id))
        .getAllByRole('cell')
        .map((c) => c.textContent);
    expect(cells(42)[4]).toBe('N/A');
    expect(cells(42).slice(5)).toEqual(['QCNN', 'Training']);
    expect(cells(43).slice(5)).toEqual(['densenet121', 'Prediction']);
    expect(cells(44).slice(5)).toEqual(['—', '—']);
    expect(onCountChange).toHaveBeenCalledWith(4);
  });

  it("shows 'No outputs found' when empty or when the search matches none, and Refresh reads again", async () => {
    const { calls } = setup([summary(41, 'Completed'), summary(52, 'Completed')]);
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(2));
    const search = screen.getByRole('searchbox', { name: 'Search by output ID' });
    fireEvent.change(search, { target: { value: '52' } });
    expect(screen.getAllByTestId('output-row').map((r) => r.dataset.outputId)).toEqual(['52']);
    fireEvent.change(search, { target: { value: '99' } });
    expect(screen.getByText('No outputs found')).toBeTruthy();
    const before = calls.filter((c) => c.path === '/api/application-outputs/5/all').length;
    fireEvent.click(button('Refresh'));
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/api/application-outputs/5/all').length).toBe(before + 1),
    );
  });
  it('reads the list again while an output is Ongoing, and stops once none is', async () => {
    let status = 'running';
    const calls = fakeApi({
      'GET /api/application-outputs/5/all': () => ({ body: { success: true, data: [summary(41, status)] } }),
    });
    const reads = () => calls.filter((c) => c.path === '/api/application-outputs/5/all').length;
    vi.useFakeTimers({ shouldAdvanceTime: true });
    render(
      <OutputsTab
        problem={problem}
        applicationId={5}
        appData={appData}
        running={false}
        refreshKey={0}
        onCountChange={vi.fn()}
        onRunAgain={vi.fn()}
      />,
    );
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    expect(reads()).toBe(1);
    status = 'Completed';
    await act(() => vi.advanceTimersByTimeAsync(OUTPUTS_POLL_MS));
    await waitFor(() => expect(within(rowOf(41)).getByTestId('job-status').textContent).toBe('Completed'));
    const settled = reads();
    await act(() => vi.advanceTimersByTimeAsync(3 * OUTPUTS_POLL_MS));
    expect(reads()).toBe(settled);
  });
});

describe('selection', () => {
  it('allows at most 2, refuses a third with a message, and never selects a prediction', async () => {
    setup([
      summary(41, 'Completed'),
      summary(42, 'Completed'),
      summary(43, 'Completed'),
      summary(44, 'Completed', { result_type: 'Prediction' }),
    ]);
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(4));
    const prediction = box(44) as HTMLInputElement;
    expect(prediction.disabled).toBe(true);
    expect(prediction.title).toMatch(/prediction cannot be analyzed or compared/i);

    expect((button('Analyze Output') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(box(41));
    expect((button('Analyze Output') as HTMLButtonElement).disabled).toBe(false);
    expect((button('Compare Outputs') as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(box(42));
    expect((button('Analyze Output') as HTMLButtonElement).disabled).toBe(true);
    expect((button('Compare Outputs') as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(box(43));
    expect(screen.getByRole('alert').textContent).toBe(TOO_MANY_SELECTED);
    expect((box(43) as HTMLInputElement).checked).toBe(false);
    expect((box(41) as HTMLInputElement).checked).toBe(true);
    // Selecting does not open the output.
    expect(screen.queryByRole('button', { name: 'All Outputs' })).toBeNull();
  });

  it("shows 'You have selected 2 outputs for comparison.' 300 ms after the second selection", async () => {
    setup([summary(41, 'Completed'), summary(42, 'Completed')]);
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(2));
    vi.useFakeTimers();
    fireEvent.click(box(41));
    fireEvent.click(box(42));
    const status = screen.getByRole('status');
    act(() => vi.advanceTimersByTime(299));
    expect(status.textContent).toBe('');
    act(() => vi.advanceTimersByTime(1));
    expect(status.textContent).toBe(TWO_SELECTED);
    fireEvent.click(box(42));
    expect(status.textContent).toBe('');
    fireEvent.click(box(42));
    expect(status.textContent).toBe('');
    act(() => vi.advanceTimersByTime(300));
    expect(status.textContent).toBe(TWO_SELECTED);
  });
});

describe('Analyze and Compare overlays', () => {
  it('Technical: the numbers beside the charts; A+ / A- from 15 px; Print; Escape closes', async () => {
    setup([summary(41, 'Completed')], detailRoute(trainingDetail(41)));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.click(box(41));
    fireEvent.click(button('Analyze Output'));
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByTestId('overall-metrics');
    expect(within(dialog).getByText('Majority class')).toBeTruthy();
    expect(within(dialog).getByTestId('class-metrics').textContent).toContain('glioma');
    expect(
      within(dialog).getByText(/Every number in the written report is one of the output's own results/),
    ).toBeTruthy();
    const titles = within(dialog)
      .getAllByRole('figure')
      .map((f) => f.querySelector('figcaption')?.textContent);
    expect(titles).toEqual(
      expect.arrayContaining(['Loss over Epochs', 'Accuracy vs Validation Accuracy', 'Confusion Matrix']),
    );

    const body = within(dialog).getByTestId('report-body');
    expect(body.style.fontSize).toBe('15px');
    fireEvent.click(within(dialog).getByRole('button', { name: 'A+' }));
    expect(body.style.fontSize).toBe('16px');
    for (let i = 0; i < 20; i++) fireEvent.click(within(dialog).getByRole('button', { name: 'A-' }));
    expect(body.style.fontSize).toBe('1px');
    expect((within(dialog).getByRole('button', { name: 'A-' }) as HTMLButtonElement).disabled).toBe(true);

    const print = vi.fn();
    vi.stubGlobal('print', print);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledOnce();

    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Non-Technical: sentences derived from the metrics; Back to outputs closes', async () => {
    setup([summary(41, 'Completed')], detailRoute(trainingDetail(41)));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.click(box(41));
    fireEvent.click(screen.getByRole('radio', { name: 'Non-Technical' }));
    fireEvent.click(button('Analyze Output'));
    const dialog = await screen.findByRole('dialog');
    const summaryList = await within(dialog).findByTestId('plain-summary');
    expect(summaryList.textContent).toContain('The model labelled 8 of 10 test scans correctly (80%).');
    expect(summaryList.textContent).toContain('It most often confused glioma with meningioma');
    expect(within(dialog).queryByTestId('overall-metrics')).toBeNull();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Back to outputs' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('Compare: both outputs side by side and their differences', async () => {
    const second = trainingDetail(42, {
      trained_model_type: 'QCNN',
      metrics: { accuracy: 0.65, macro_f1: 0.6 },
    });
    setup([summary(41, 'Completed'), summary(42, 'Completed', { trained_model_type: 'QCNN' })], {
      ...detailRoute(trainingDetail(41)),
      ...detailRoute(second),
    });
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(2));
    fireEvent.click(box(41));
    fireEvent.click(box(42));
    fireEvent.click(button('Compare Outputs'));
    const dialog = await screen.findByRole('dialog');
    const table = await within(dialog).findByTestId('difference-table');
    // The sign says which way: the second output minus the first, named in the header.
    expect([...table.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual([
      'Metric',
      expect.stringMatching(/^#41/),
      expect.stringMatching(/^#42/),
      expect.stringMatching(/^Difference \(#42.* − #41.*\)$/),
    ]);
    const accuracy = within(table).getByRole('rowheader', { name: 'accuracy' }).closest('tr')!;
    expect([...accuracy.querySelectorAll('td')].map((td) => td.textContent)).toEqual([
      '0.8000',
      '0.6500',
      '-0.1500',
    ]);
    expect(within(dialog).getByRole('region', { name: 'Output 41' })).toBeTruthy();
    expect(within(dialog).getByRole('region', { name: 'Output 42' })).toBeTruthy();
  });
});

describe('output detail', () => {
  it('a training: Performance Analysis (metrics, baseline, dataset, range, configuration) and Chart', async () => {
    setup([summary(41, 'Completed')], detailRoute(trainingDetail(41)));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.click(rowOf(41));
    await screen.findByTestId('overall-metrics');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Performance Analysis', 'Chart']);
    expect(screen.getByTestId('output-dataset').textContent).toContain('Synthetic');
    expect(screen.getByTestId('run-setup').textContent).toContain('Slices 1 to 100');
    expect(screen.getByTestId('model-configuration').textContent).toContain('densenet121');
    fireEvent.click(screen.getByRole('tab', { name: 'Chart' }));
    expect(screen.getAllByRole('figure')).toHaveLength(3);
    expect(screen.queryByText('No Training History')).toBeNull();
    fireEvent.click(button('All Outputs'));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
  });

  it("a training without history or plots: 'No Training History' and 'No plots available for {app}.'", async () => {
    const bare = trainingDetail(41, {
      charts: [],
      output_data: { result_type: 'Training', training_history: null },
    });
    setup([summary(41, 'Completed')], detailRoute(bare));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.keyDown(rowOf(41), { key: 'Enter' });
    fireEvent.click(await screen.findByRole('tab', { name: 'Chart' }));
    expect(screen.getByText('No Training History')).toBeTruthy();
    expect(screen.getByText('No plots available for MRI study.')).toBeTruthy();
  });

  it('a prediction: Diagnosis Summary (class, probabilities, model, image, notice) and Detailed Insights', async () => {
    setup([summary(43, 'Completed', { result_type: 'Prediction' })], {
      ...detailRoute(predictionDetail(43)),
      ...detailRoute(trainingDetail(41)),
    });
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.click(rowOf(43));
    expect((await screen.findByTestId('prediction')).textContent).toBe('Prediction: glioma');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual([
      'Diagnosis Summary',
      'Detailed Insights',
    ]);
    const rows = within(screen.getByTestId('probabilities'))
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toEqual(['glioma80.00 %', 'meningioma15.00 %', 'pituitary5.00 %']);
    expect(screen.getByTestId('prediction-model').textContent).toBe('densenet121, trained by output 41');
    expect(screen.getByText('glioma-1.png (png)')).toBeTruthy();
    // The model's training output is read for its dataset: synthetic here.
    await waitFor(() =>
      expect(screen.getByTestId('research-notice').textContent).toContain('trained on synthetic MRI data'),
    );
    expect(screen.getByTestId('research-notice').textContent).toContain('not a diagnosis');
    fireEvent.click(screen.getByRole('tab', { name: 'Detailed Insights' }));
    expect(screen.getByTestId('insights').textContent).toContain('it was right 85.00 % of the time');
    expect(screen.getByText('No recommendations available')).toBeTruthy();
  });

  it("a prediction without an answer: 'No insights available'", async () => {
    const empty = predictionDetail(43, {
      output_data: { result_type: 'Prediction' } as unknown as OutputDetail['output_data'],
    });
    setup([summary(43, 'Completed', { result_type: 'Prediction' })], detailRoute(empty));
    await waitFor(() => expect(screen.getAllByTestId('output-row')).toHaveLength(1));
    fireEvent.click(rowOf(43));
    fireEvent.click(await screen.findByRole('tab', { name: 'Detailed Insights' }));
    expect(screen.getByText('No insights available')).toBeTruthy();
  });
});
