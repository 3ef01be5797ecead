// @vitest-environment jsdom
// The landing cards carousel (spec section 2): 300 px per step, never past either end, buttons
// disabled at the ends, and the arrow keys on the focused row move it like the buttons.

import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Carousel, SCROLL_STEP_PX, stepTarget } from './carousel';

afterEach(cleanup);

/** jsdom lays nothing out: give the row a scrollable width (1000 px of content in a 400 px view). */
function renderRow() {
  render(
    <Carousel label="Financial applications">
      <li>one</li>
      <li>two</li>
      <li>three</li>
    </Carousel>,
  );
  const row = screen.getByRole('region', { name: 'Financial applications' });
  Object.defineProperty(row, 'scrollWidth', { configurable: true, value: 1000 });
  Object.defineProperty(row, 'clientWidth', { configurable: true, value: 400 });
  fireEvent.scroll(row);
  return row;
}

describe('the cards carousel', () => {
  it('steps 300 px and stops at either end', () => {
    expect(SCROLL_STEP_PX).toBe(300);
    expect(stepTarget(0, 600, 1)).toBe(300);
    expect(stepTarget(300, 600, 1)).toBe(600);
    expect(stepTarget(500, 600, 1)).toBe(600);
    expect(stepTarget(200, 600, -1)).toBe(0);
    expect(stepTarget(0, -5, 1)).toBe(0);
  });

  it('moves the row with Next and Previous, disabling each at its end', () => {
    const row = renderRow();
    const previous = screen.getByRole('button', { name: 'Previous applications' }) as HTMLButtonElement;
    const next = screen.getByRole('button', { name: 'Next applications' }) as HTMLButtonElement;
    expect(previous.disabled).toBe(true);
    expect(next.disabled).toBe(false);
    fireEvent.click(next);
    expect(row.scrollLeft).toBe(300);
    expect(previous.disabled).toBe(false);
    fireEvent.click(next);
    expect(row.scrollLeft).toBe(600);
    expect(next.disabled).toBe(true);
    fireEvent.click(previous);
    expect(row.scrollLeft).toBe(300);
  });

  it('moves with the arrow keys when the row has focus', () => {
    const row = renderRow();
    expect(row.tabIndex).toBe(0);
    fireEvent.keyDown(row, { key: 'ArrowRight' });
    expect(row.scrollLeft).toBe(300);
    fireEvent.keyDown(row, { key: 'ArrowLeft' });
    expect(row.scrollLeft).toBe(0);
  });
});
