// Is the difference between two repeated runs larger than the seed-to-seed noise? When both ran the
// same seeds (in the same order), each seed is a pair and the paired t-test on the per-seed
// differences removes what the seed does to both; otherwise Welch's t-test (unequal variances,
// Welch-Satterthwaite degrees of freedom). Two-sided, at the 5% level.

export interface SeedValues {
  seeds: readonly number[];
  /** The metric per seed, in seed order (null where a repeat could not compute it). */
  values: readonly (number | null)[];
}

export interface NoiseTest {
  test: 'paired' | 'welch';
  /** b's mean minus a's. */
  difference: number;
  t: number;
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** p below 0.05: the difference is larger than the noise across seeds. */
  beyondNoise: boolean;
}

export const SIGNIFICANCE = 0.05;

function lnGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9), good to about 1e-15 for x > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaFraction(a, b, x)) / a
    : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** Two-sided p-value of Student's t with `df` degrees of freedom. */
export function twoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

const numbers = (values: readonly (number | null)[]) =>
  values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const variance = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

/** Whether both runs used the same seeds in the same order (so seed i of a pairs with seed i of b). */
export const seedsMatch = (a: SeedValues, b: SeedValues): boolean =>
  a.seeds.length === b.seeds.length && a.seeds.every((seed, i) => seed === b.seeds[i]);

function result(test: NoiseTest['test'], difference: number, t: number, df: number): NoiseTest {
  const p = twoSidedP(t, df);
  return { test, difference, t, df, p, beyondNoise: p < SIGNIFICANCE };
}

/**
 * The test for b against a, or null when it cannot be made (fewer than two values on a side, or no
 * spread at all: then nothing says how large the noise is).
 */
export function differenceAgainstNoise(a: SeedValues, b: SeedValues): NoiseTest | null {
  if (seedsMatch(a, b)) {
    const diffs: number[] = [];
    a.values.forEach((va, i) => {
      const vb = b.values[i];
      if (typeof va === 'number' && typeof vb === 'number' && Number.isFinite(va) && Number.isFinite(vb))
        diffs.push(vb - va);
    });
    if (diffs.length < 2) return null;
    const d = mean(diffs);
    const sd = Math.sqrt(variance(diffs));
    if (sd === 0) return d === 0 ? null : result('paired', d, Math.sign(d) * Infinity, diffs.length - 1);
    return result('paired', d, d / (sd / Math.sqrt(diffs.length)), diffs.length - 1);
  }
  const xa = numbers(a.values);
  const xb = numbers(b.values);
  if (xa.length < 2 || xb.length < 2) return null;
  const va = variance(xa) / xa.length;
  const vb = variance(xb) / xb.length;
  const d = mean(xb) - mean(xa);
  if (va + vb === 0)
    return d === 0 ? null : result('welch', d, Math.sign(d) * Infinity, xa.length + xb.length - 2);
  const df = (va + vb) ** 2 / (va ** 2 / (xa.length - 1) + vb ** 2 / (xb.length - 1));
  return result('welch', d, d / Math.sqrt(va + vb), df);
}
