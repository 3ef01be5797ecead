// The paired-or-Welch decision for two repeated runs, and its p-values against published t tables.

import { describe, expect, it } from 'vitest';
import { differenceAgainstNoise, seedsMatch, twoSidedP } from './seed-noise';

describe('twoSidedP', () => {
  it('matches the t table', () => {
    expect(twoSidedP(12.706204736, 1)).toBeCloseTo(0.05, 6);
    expect(twoSidedP(2.228138852, 10)).toBeCloseTo(0.05, 6);
    expect(twoSidedP(2.0, 10)).toBeCloseTo(0.073388, 5);
    expect(twoSidedP(0, 4)).toBeCloseTo(1, 9);
  });
});

describe('differenceAgainstNoise', () => {
  const seeds = [42, 43, 44, 45];

  it('pairs the seeds when both runs used the same ones: a steady small gain is beyond the noise', () => {
    // Each seed moves both runs alike; b is 0.01 better on every seed.
    const a = { seeds, values: [0.7, 0.8, 0.75, 0.9] };
    const b = { seeds, values: [0.711, 0.809, 0.762, 0.909] };
    expect(seedsMatch(a, b)).toBe(true);
    const paired = differenceAgainstNoise(a, b)!;
    expect(paired.test).toBe('paired');
    expect(paired.df).toBe(3);
    expect(paired.difference).toBeCloseTo(0.01025, 12);
    // Reference: scipy.stats.ttest_rel(b, a) gives t 13.6667, p 0.00084757 (3 df).
    expect(paired.t).toBeCloseTo(13.666666667, 6);
    expect(paired.p).toBeCloseTo(0.00084757, 7);
    expect(paired.beyondNoise).toBe(true);

    // The same numbers from other seeds cannot be paired: Welch sees the seed spread and no difference.
    const other = { seeds: [50, 51, 52, 53], values: b.values };
    const welch = differenceAgainstNoise(a, other)!;
    expect(welch.test).toBe('welch');
    // Reference: scipy.stats.ttest_ind(b, a, equal_var=False) gives t 0.170869, p 0.869944, 5.99896 df.
    expect(welch.t).toBeCloseTo(0.170869429, 6);
    expect(welch.df).toBeCloseTo(5.998961146, 6);
    expect(welch.p).toBeCloseTo(0.869943967, 6);
    expect(welch.beyondNoise).toBe(false);
  });

  it('seeds in another order are not pairs', () => {
    expect(seedsMatch({ seeds: [42, 43], values: [1, 2] }, { seeds: [43, 42], values: [1, 2] })).toBe(false);
  });

  it('a large gap between runs with their own seeds is beyond the noise by Welch', () => {
    const a = { seeds: [42, 43, 44], values: [1.0, 1.1, 0.9] };
    const b = { seeds: [7, 8, 9], values: [2.0, 2.1, 1.9] };
    const test = differenceAgainstNoise(a, b)!;
    expect(test.test).toBe('welch');
    expect(test.difference).toBeCloseTo(1, 12);
    // Reference: scipy gives t 12.2474, p 0.00025522 (4 df).
    expect(test.p).toBeCloseTo(0.00025522, 7);
    expect(test.beyondNoise).toBe(true);
  });

  it('says nothing with fewer than two values a side or no spread and no difference', () => {
    expect(differenceAgainstNoise({ seeds: [42], values: [1] }, { seeds: [42], values: [2] })).toBeNull();
    expect(
      differenceAgainstNoise({ seeds: [42, 43], values: [1, 1] }, { seeds: [42, 43], values: [1, 1] }),
    ).toBeNull();
  });
});
