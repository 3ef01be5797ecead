// @vitest-environment jsdom
// The written reports' controls both outputs lists share: the Technical / Non-Technical choice reports the
// reader's pick, and each button is enabled by what it needs and opens its report.

import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReportKindChoice } from './report-kind-choice';

afterEach(cleanup);

function renderChoice(technical: boolean, analyzeDisabled: boolean, compareDisabled: boolean) {
  const handlers = { technical: vi.fn(), analyze: vi.fn(), compare: vi.fn() };
  render(
    <ReportKindChoice
      name="kind"
      technical={technical}
      onTechnicalChange={handlers.technical}
      analyze={{ disabled: analyzeDisabled, onClick: handlers.analyze, title: 'Pin one' }}
      compare={{ disabled: compareDisabled, onClick: handlers.compare }}
      tone="primary"
    />,
  );
  return handlers;
}

describe('ReportKindChoice', () => {
  it('shows the chosen kind and reports the other when picked', () => {
    const handlers = renderChoice(true, false, false);
    const technical = screen.getByRole('radio', { name: 'Technical' }) as HTMLInputElement;
    const plain = screen.getByRole('radio', { name: 'Non-Technical' }) as HTMLInputElement;
    expect([technical.checked, plain.checked]).toEqual([true, false]);
    fireEvent.click(plain);
    expect(handlers.technical).toHaveBeenCalledWith(false);
  });

  it('opens a report from an enabled button and not from a disabled one', () => {
    const handlers = renderChoice(false, false, true);
    const analyze = screen.getByRole('button', { name: 'Analyze Output' }) as HTMLButtonElement;
    const compare = screen.getByRole('button', { name: 'Compare Outputs' }) as HTMLButtonElement;
    expect(analyze.title).toBe('Pin one');
    expect(analyze.className).toBe('button primary');
    expect(compare.disabled).toBe(true);
    fireEvent.click(analyze);
    fireEvent.click(compare);
    expect(handlers.analyze).toHaveBeenCalledTimes(1);
    expect(handlers.compare).not.toHaveBeenCalled();
  });
});
