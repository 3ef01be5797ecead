// @vitest-environment jsdom
// The landing's demo sections against a stand-in API: the honest notice while nothing is exported
// (404), and with an exported comparison the tabs (Confusion Matrix by default), the spec's empty
// texts and the technical / non-technical toggle. jsdom has no Cache API: the plain-fetch path.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test-support/fake-api';
import { PerformanceComparison } from './performance-comparison';
import { ResultInterpretation } from './result-interpretation';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const examples = {
  success: true,
  data: [
    { problem_id: 'fraud-detection', problem_name: 'Fraud Detection' },
    { problem_id: 'brain-tumor', problem_name: 'Brain Tumor or Cancer Detection' },
  ],
};
const NOT_GENERATED = { success: false, detail: 'Demo data has not been generated yet: ...' };
const compare = {
  success: true,
  data: {
    application: { id: 3, app_name: 'Fraud Detection Example', problem_id: 'fraud-detection' },
    outputs: [
      {
        id: 349,
        name: 'run',
        status: 'Completed',
        created_at: null,
        completed_at: null,
        model_type: 'Quantum',
        metrics: { accuracy: 0.9 },
        training_data: null,
        losses: null,
        confusion_matrix: [
          [90, 3],
          [7, 40],
        ],
      },
    ],
  },
};

describe('landing demo sections', () => {
  it('say the comparison appears once the examples have been run while nothing is exported', async () => {
    const calls = fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/fraud-detection/compare': () => ({ status: 404, body: NOT_GENERATED }),
    });
    render(
      <>
        <PerformanceComparison />
        <ResultInterpretation />
      </>,
    );
    const notices = await screen.findAllByTestId('demo-notice');
    expect(notices.map((n) => n.textContent)).toEqual([
      expect.stringMatching(
        /^The performance comparison appears here once the example applications have been run/,
      ),
      expect.stringMatching(
        /^The result interpretation appears here once the example applications have been run/,
      ),
    ]);
    expect(screen.getByRole('tab', { name: 'Confusion Matrix' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.queryByRole('table')).toBeNull();
    expect(calls.filter((c) => c.path.includes('demo-data'))).toHaveLength(2);
    // The two sections share one request for the example problems.
    expect(calls.filter((c) => c.path === '/api/examples')).toHaveLength(1);
  });

  it('show an exported comparison: the heatmap by default, the spec empty texts, the two explanations', async () => {
    fakeApi({
      'GET /api/examples': () => ({ body: examples }),
      'GET /api/demo-data/fraud-detection/compare': () => ({ body: compare }),
    });
    render(
      <>
        <PerformanceComparison />
        <ResultInterpretation />
      </>,
    );
    const heatmap = await screen.findByRole('table', {
      name: 'Quantum model (output 349): confusion matrix',
    });
    expect(heatmap.querySelector('.heat-high')!.textContent).toBe('90');
    fireEvent.click(screen.getByRole('tab', { name: 'Training and Test Losses' }));
    expect(screen.getByText('No Training History')).toBeTruthy();
    fireEvent.click(screen.getByRole('tab', { name: 'Training Data' }));
    expect(screen.getByText('No Data Available')).toBeTruthy();
    expect(screen.getByText('The quantum model got 90 of every 100 test cases right.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Technical' }));
    expect(screen.getByText('accuracy').nextSibling!.textContent).toBe('0.900');
  });
});
