// @vitest-environment jsdom
// Spec section 2: screens narrower than 768 px show 'Mobile View is not supported' instead of the app,
// and the guard follows the window as it is resized.

import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MobileGuard, MOBILE_TEXT } from './mobile-guard';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** A window of `width` px: matchMedia answers (max-width: N px) queries for it, and can be resized. */
function windowOf(width: number) {
  const listeners = new Set<() => void>();
  const matches = (query: string) => {
    const max = /max-width:\s*([\d.]+)px/.exec(query);
    return max ? width <= Number(max[1]) : false;
  };
  vi.stubGlobal('matchMedia', (query: string) => ({
    get matches() {
      return matches(query);
    },
    media: query,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  }));
  return {
    resize(to: number) {
      width = to;
      act(() => listeners.forEach((listener) => listener()));
    },
  };
}

const app = (
  <MobileGuard>
    <p>the app</p>
  </MobileGuard>
);

describe('the mobile guard', () => {
  it('shows the app at 768 px', () => {
    windowOf(768);
    render(app);
    expect(screen.getByText('the app')).toBeTruthy();
    expect(screen.queryByText(MOBILE_TEXT)).toBeNull();
  });

  it("shows 'Mobile View is not supported' instead of the app at 767 px", () => {
    windowOf(767);
    render(app);
    expect(screen.getByRole('alert').textContent).toContain('Mobile View is not supported');
    expect(screen.queryByText('the app')).toBeNull();
  });

  it('follows the window when it is resized', () => {
    const screenSize = windowOf(1280);
    render(app);
    screenSize.resize(600);
    expect(screen.getByText(MOBILE_TEXT)).toBeTruthy();
    screenSize.resize(1024);
    expect(screen.getByText('the app')).toBeTruthy();
  });
});
