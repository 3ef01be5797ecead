// @vitest-environment jsdom
// The head both workspace output views share (Outputs tab and brain tumor outputs): the read failure,
// Loading…, the summary card with Status and the caller's facts, Stop while Ongoing, the failure reason,
// the live progress and the caller's body.

import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { completedOutput } from '../../../../test-support/output-fixtures';
import { cleanBrowserAfterEach } from '../../../../test-support/page-test';
import type { LiveOutput } from './output-parts';
import { EMPTY_LIVE } from '../output-rules';
import { OutputSummary } from './output-summary';
import { STOP_QUESTION } from '../stop-button';

cleanBrowserAfterEach();

function liveOutput(over: Partial<LiveOutput> = {}): LiveOutput {
  const detail = completedOutput({ id: 9, name: 'Run 9' });
  return {
    detail,
    live: EMPTY_LIVE,
    status: detail.status,
    ongoing: false,
    error: null,
    stopping: false,
    stop: vi.fn(() => Promise.resolve()),
    ...over,
  };
}

const body = (detail: { name: string }) => <p data-testid="body">{detail.name}</p>;

describe('OutputSummary', () => {
  it('says Loading… until the detail is read, and shows a read failure instead', () => {
    const { rerender } = render(
      <OutputSummary output={liveOutput({ detail: null, status: null })}>{body}</OutputSummary>,
    );
    expect(screen.getByText('Loading…')).toBeTruthy();
    expect(screen.queryByTestId('body')).toBeNull();
    rerender(
      <OutputSummary output={liveOutput({ detail: null, status: null, error: 'Not found' })}>
        {body}
      </OutputSummary>,
    );
    expect(screen.getByRole('alert').textContent).toBe('Not found');
    expect(screen.queryByText('Loading…')).toBeNull();
  });

  it("a completed output: Status, the caller's facts before the run's, its buttons, no Stop, then the body", () => {
    render(
      <OutputSummary
        output={liveOutput()}
        facts={
          <>
            <dt>Result Type</dt>
            <dd>Training</dd>
          </>
        }
        actions={<button type="button">Run again with these settings</button>}
      >
        {body}
      </OutputSummary>,
    );
    const terms = [...document.querySelectorAll('dt')].map((dt) => dt.textContent);
    expect(terms.slice(0, 3)).toEqual(['Status', 'Result Type', 'Created Date']);
    expect(screen.getByTestId('job-status').getAttribute('data-status')).toBe('Completed');
    expect(screen.getByRole('button', { name: 'Run again with these settings' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(screen.queryByTestId('live-progress')).toBeNull();
    expect(screen.getByTestId('body').textContent).toBe('Run 9');
  });

  it('an Ongoing output has Stop (disabled while stopping) and the live progress; printing leaves the buttons out', () => {
    const output = liveOutput({ status: 'running', ongoing: true });
    const { rerender } = render(
      <OutputSummary output={output} noPrintActions>
        {body}
      </OutputSummary>,
    );
    const stop = screen.getByRole('button', { name: 'Stop' }) as HTMLButtonElement;
    expect(stop.closest('.detail-actions')?.className).toContain('no-print');
    // Stop asks first: 'No, keep running' leaves the run alone, 'Yes, stop' stops it.
    fireEvent.click(stop);
    expect(screen.getByRole('alert').textContent).toBe(STOP_QUESTION);
    expect(output.stop).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'No, keep running' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(output.stop).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, stop' }));
    expect(output.stop).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId('live-progress')).toBeTruthy();
    rerender(
      <OutputSummary output={{ ...output, stopping: true }} noPrintActions>
        {body}
      </OutputSummary>,
    );
    expect((screen.getByRole('button', { name: 'Stop' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('a Failed output shows its reason', () => {
    render(
      <OutputSummary
        output={liveOutput({
          status: 'Failed',
          detail: completedOutput({ status: 'Failed', error: 'Out of memory' }),
        })}
      >
        {body}
      </OutputSummary>,
    );
    expect(screen.getByTestId('failure-reason').textContent).toBe('Out of memory');
  });
});
