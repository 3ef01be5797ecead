// The dashboard's pure rules: the pagination window (First + 4 numbers + Last), the brain tumor tab
// by problem name, and the search by id or name.

import { describe, expect, it } from 'vitest';
import { applicationsOfTab, isBrainTumor, matchesSearch, pageWindow } from './dashboard-rules';

const app = (id: number, app_name: string, problem: string) => ({
  id,
  app_name,
  app_problem: { id: problem.toLowerCase().replace(/ /g, '-'), name: problem, workspace: 'development' },
});

describe('pageWindow', () => {
  it('shows four page numbers around the current page, clamped to the first and last pages', () => {
    expect(pageWindow(0, 1)).toEqual([0]);
    expect(pageWindow(0, 3)).toEqual([0, 1, 2]);
    expect(pageWindow(0, 9)).toEqual([0, 1, 2, 3]);
    expect(pageWindow(1, 9)).toEqual([0, 1, 2, 3]);
    expect(pageWindow(4, 9)).toEqual([3, 4, 5, 6]);
    expect(pageWindow(7, 9)).toEqual([5, 6, 7, 8]);
    expect(pageWindow(8, 9)).toEqual([5, 6, 7, 8]);
    expect(pageWindow(0, 0)).toEqual([]);
  });
});

describe('tabs and search', () => {
  it("puts problems named 'brain tumor' (any case) in their own tab only", () => {
    const apps = [
      app(1, 'a', 'Brain Tumor'),
      app(2, 'b', 'Stock Price Prediction'),
      app(3, 'c', 'BRAIN TUMOR'),
    ];
    expect(isBrainTumor(apps[2] as never)).toBe(true);
    expect(applicationsOfTab(apps as never, 'brain-tumor').map((a) => a.id)).toEqual([1, 3]);
    expect(applicationsOfTab(apps as never, 'financial').map((a) => a.id)).toEqual([2]);
  });

  it('matches the id or the name, case-insensitive, ignoring surrounding spaces', () => {
    const one = app(42, 'Tech Stocks', 'Stock Price Prediction');
    expect(matchesSearch(one, '42')).toBe(true);
    expect(matchesSearch(one, ' tech ')).toBe(true);
    expect(matchesSearch(one, 'STOCKS')).toBe(true);
    expect(matchesSearch(one, 'prediction')).toBe(false);
    expect(matchesSearch(one, '')).toBe(true);
  });
});
