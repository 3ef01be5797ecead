// @vitest-environment jsdom
// The written reports in the Analyze and Compare overlays: the analysis Markdown drawn as text with its
// Markdown download, the comparison's conclusion, insights and recommendations, metrics with each
// baseline and the better run marked, configurations with the differences first, both runs' curves on
// one chart. The API is faked at the fetch boundary.

import { fireEvent, render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserRegistry } from '../../../../../renderers/browser-registry';
import { fakeApi } from '../../../../test-support/fake-api';
import { completedOutput } from '../../../../test-support/output-fixtures';
import { cleanBrowserAfterEach, storeToken } from '../../../../test-support/page-test';
import { AnalyzeOverlay, CompareOverlay } from './analyze-compare-overlays';
import { ComparisonText, overlaidCurves } from './written-report';
import type { ComparisonReport } from './api/analysis-reports';

vi.mock('react-apexcharts', () => ({
  default: (props: { type: string; series: { name: string }[] }) => (
    <div data-testid="apex" data-type={props.type} data-series={props.series.map((s) => s.name).join('|')} />
  ),
}));

beforeEach(storeToken);
cleanBrowserAfterEach();

const problem = browserRegistry().getProblem('stock-price-prediction');
const detail = (id: number) =>
  completedOutput({
    id,
    name: `Stocks #${id}`,
    problem_id: 'stock-price-prediction',
    trained_model_type: 'LSTM',
  });

const ANALYSIS = [
  '# Analysis of Stocks #41: LSTM forecasting Close',
  '',
  '## Conclusion',
  '',
  'LSTM does not beat the persistence baseline on the test part: RMSE 0.2996 against 0.2803, 6.9% higher.',
  '',
  '## Recommendations',
  '',
  '- The best test loss came at the last epoch: train for more epochs than 20.',
  '',
  '## Definitions',
  '',
  '- **RMSE**: Root mean squared error of the forecasts on the test part.',
].join('\n');

const comparison: ComparisonReport = {
  interpreted: {
    conclusion: 'Stocks #41 forecasts better on test RMSE: 0.2996 against 1.316 for Stocks #42, 77.2% lower.',
    insights: ['RMSE: Stocks #41 0.2996, Stocks #42 1.316.'],
    recommendations: ['Keep the configuration of Stocks #41.'],
    definition: 'RMSE: Root mean squared error.',
  },
  configurations: [
    { key: 'model_configurations.training_model_method', a: 'LSTM', b: 'Quantum', differs: true },
    { key: 'preprocess.train_test_split', a: 0.6, b: 0.6, differs: false },
  ],
  metrics: [
    { name: 'rmse', label: 'RMSE', a: 0.2996, b: 1.316, baseline_a: 0.2803, baseline_b: 0.2803, better: 'a' },
  ],
  curves: {
    a: { train_loss: [0.3, 0.2], test_loss: [0.4, 0.1] },
    b: { train_loss: [0.5, 0.4, 0.3], test_loss: [0.6, 0.5, 0.5] },
  },
  spread: { a: null, b: null },
  outputs: [
    { id: 41, name: 'Stocks #41', model: 'LSTM' },
    { id: 42, name: 'Stocks #42', model: 'Quantum' },
  ],
  message: { role: 'assistant', content: '# Comparison of Stocks #41 and Stocks #42\n' },
  created_at: '2026-03-03T10:00:00.000Z',
  register: 'technical',
  source: 'engine',
  note: null,
};

describe('written reports in the overlays', () => {
  it('Analyze asks output-analyze with the register and shows the report, with a Markdown download', async () => {
    const calls = fakeApi({
      'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
      'POST /api/output-analyzer/output-analyze': () => ({
        body: {
          success: true,
          data: {
            output_id: 41,
            message: { role: 'assistant', content: ANALYSIS },
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
    });
    render(<AnalyzeOverlay outputId={41} technical={false} onClose={vi.fn()} />);
    const written = await screen.findByTestId('written-analysis');
    expect(within(written).getByRole('heading', { name: 'Recommendations' })).toBeTruthy();
    expect(written.textContent).toContain('train for more epochs than 20');
    expect(within(written).getByText('RMSE').tagName).toBe('STRONG');
    const asked = calls.find((c) => c.path.startsWith('/api/output-analyzer/output-analyze'))!;
    expect(asked.method).toBe('POST');
    expect(new URLSearchParams(asked.path.split('?')[1]).toString()).toBe(
      'output_id=41&application_name=Stocks&interpreted_type_is_technical=false',
    );
    const created: Blob[] = [];
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (blob: Blob) => (created.push(blob), 'blob:x'),
        revokeObjectURL: vi.fn(),
      }),
    );
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    fireEvent.click(within(written).getByRole('button', { name: 'Download Markdown' }));
    expect(click).toHaveBeenCalledOnce();
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(created[0]!);
    });
    expect(text).toBe(ANALYSIS);
  });

  it('Compare shows the interpretation, metrics with baselines and the better run, configurations differences first, one curve chart', async () => {
    const calls = fakeApi({
      'GET /api/application-outputs/41/detail': () => ({ body: { success: true, data: detail(41) } }),
      'GET /api/application-outputs/42/detail': () => ({ body: { success: true, data: detail(42) } }),
      'GET /api/application-outputs/compare': () => ({ body: { success: true, data: comparison } }),
    });
    render(<CompareOverlay problem={problem} outputIds={[41, 42]} technical onClose={vi.fn()} />);
    const written = await screen.findByTestId('written-comparison');
    expect(within(written).getByTestId('comparison-conclusion').textContent).toBe(
      comparison.interpreted.conclusion,
    );
    expect(written.textContent).toContain('Keep the configuration of Stocks #41.');
    const rmse = within(written).getByTestId('comparison-metrics').querySelector('tr[data-metric="rmse"]')!;
    expect([...rmse.querySelectorAll('td')].map((td) => td.textContent)).toEqual([
      '0.2996 ★',
      '0.2803',
      '1.3160',
      '0.2803',
    ]);
    const settings = within(written).getByTestId('comparison-configurations').querySelectorAll('tbody tr');
    expect([...settings].map((tr) => tr.getAttribute('data-differs'))).toEqual(['true', 'false']);
    expect(settings[0]!.textContent).toContain('LSTM');
    const chart = within(written).getByTestId('apex');
    expect(chart.getAttribute('data-series')).toBe(
      '#41 train loss|#41 test loss|#42 train loss|#42 test loss',
    );
    expect(
      calls.some(
        (c) =>
          c.path ===
          '/api/application-outputs/compare?output_id1=41&output_id2=42&interpreted_type_is_technical=true',
      ),
    ).toBe(true);
  });

  it("draws a repeated run's curves as their mean with a band, cut at 0 for a loss", () => {
    const repeated = {
      ...comparison,
      spread: { a: null, b: { seeds: 5, sd: { train_loss: [0.1, 0.1, 0.1], test_loss: [0.2, 0.7, 0.1] } } },
    };
    const { spec, bands } = overlaidCurves(repeated)!;
    expect(spec.series.map((s) => s.name)).toEqual([
      '#41 train loss',
      '#41 test loss',
      '#42 train loss',
      '#42 test loss',
    ]);
    expect(bands!.series.map((s) => s.name)).toEqual(['#42 train loss', '#42 test loss']);
    const test = bands!.series[1]!.range;
    expect(test[0]![0]).toBeCloseTo(0.4);
    expect(test[1]).toEqual([0, 1.2]); // 0.5 - 0.7 < 0: a loss is never negative
    render(<ComparisonText report={repeated} />);
    expect(screen.getByTestId('apex').getAttribute('data-series')).toBe(
      '#42 train loss ± 1 sd|#42 test loss ± 1 sd|#41 train loss|#41 test loss|#42 train loss|#42 test loss',
    );
    expect(screen.getByTestId('chart-band-caption').textContent).toMatch(
      /mean \(#42 train loss over 5 seeds, #42 test loss over 5 seeds\)/,
    );
    // single runs: no band
    expect(overlaidCurves(comparison)!.bands).toBeNull();
  });

  it('no loss curves: no chart', () => {
    expect(overlaidCurves({ ...comparison, curves: { a: null, b: { accuracy: [0.5] } } })).toBeNull();
  });
});
