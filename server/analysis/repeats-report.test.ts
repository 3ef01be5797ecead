// Reports of repeated runs. The per-seed values are constructed here around a real recorded fraud
// output (fixtures/fraud-random-forest.json), to pin the wording: the analysis states mean, sd and the
// confidence interval over the seeds; a comparison says whether the difference exceeds the seed noise,
// by a paired test when the seeds match and Welch's otherwise, and drops the single-run caveat.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from '../../src/engine/node/load-schemas';
import type { JobRecord } from '../jobs/jobs-repository';
import { outputDetail } from '../outputs/output-detail';
import { AnalysisEngine } from './analysis-engine';
import { ungroundedNumbers } from './grounding';
import type { AnalysisSubject } from './output-facts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures are edited freely

const registry = loadRegistry();
const engine = new AnalysisEngine();
const fixture = JSON.parse(
  readFileSync(path.resolve('server/analysis/fixtures/fraud-random-forest.json'), 'utf8'),
) as Json;

function stats(values: number[]) {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  const half = (4.30265273 * sd) / Math.sqrt(n); // t(0.975, 2)
  return { n, mean, sd, ci_low: mean - half, ci_high: mean + half, values };
}

/** The fixture as a 3-seed run whose f1 per seed is `f1s` (the other metrics as recorded). */
function repeated(id: number, seeds: number[], f1s: number[]): AnalysisSubject {
  const job = structuredClone(fixture) as Json;
  job.id = id;
  const metrics: Json = {};
  for (const [name, value] of Object.entries(job.result.metrics as Record<string, number>))
    metrics[name] = stats(name === 'f1' || name === 'fMeasure' ? f1s : [value, value, value]);
  const baseline: Json = {};
  for (const [name, value] of Object.entries(job.result.baseline.metrics as Record<string, number>))
    baseline[name] = stats([value, value, value]);
  job.result.metrics = Object.fromEntries(Object.entries(metrics).map(([k, s]) => [k, s.mean]));
  job.result.repeats = {
    count: 3,
    seeds,
    confidence: 0.95,
    metrics,
    baseline: { name: job.result.baseline.name, metrics: baseline },
    baselines: {},
    runs: seeds.map((seed, i) => ({
      seed,
      metrics: Object.fromEntries(Object.entries(metrics).map(([k, s]) => [k, s.values[i]])),
      baseline_metrics: job.result.baseline.metrics,
    })),
    losses: null,
  };
  const record = job as unknown as JobRecord;
  return {
    job: record,
    detail: outputDetail(record, []),
    problemName: registry.getProblem(record.kind).name,
  };
}

const single: AnalysisSubject = (() => {
  const job = fixture as unknown as JobRecord;
  return { job, detail: outputDetail(job, []), problemName: registry.getProblem(job.kind).name };
})();

describe('reports of repeated runs', () => {
  it('the analysis states the mean, sd and interval over the seeds, each number a fact', () => {
    const subject = repeated(901, [42, 43, 44], [0.4, 0.5, 0.45]);
    expect(subject.detail.output_data.repeats).toBeTruthy();
    const { markdown, facts } = engine.analyze(subject, 'technical');
    expect(markdown).toContain(
      'Repeated over 3 seeds (42 to 44): F-measure 0.45 on average, standard deviation 0.05',
    );
    expect(markdown).toContain('95% confidence interval');
    expect(ungroundedNumbers(markdown, facts)).toEqual([]);
    expect(engine.analyze(single, 'technical').markdown).not.toContain('Repeated over');
  });

  it('counts of a summed confusion matrix: the test rows once, the counts said to be over the seeds', () => {
    const { facts: one, markdown: oneText } = engine.analyze(single, 'technical');
    const rows = one.get('conf.total')!.value as number;
    const rowsText = one.get('conf.total')!.text; // '6,000'
    expect(oneText).toContain(`Confusions on the ${rowsText} test rows: `);
    // the worker sums each seed's matrix (each seed's own test part): here 3 seeds of the same counts
    const subject = repeated(903, [42, 43, 44], [0.4, 0.5, 0.45]);
    const job = subject.job as unknown as Json;
    const matrix = (single.job.result as Json).confusion_matrix as number[][];
    job.result.confusion_matrix = matrix.map((row) => row.map((v) => v * 3));
    const summed = { ...subject, detail: outputDetail(job as unknown as JobRecord, []) };
    const { facts, markdown } = engine.analyze(summed, 'technical');
    expect(facts.get('conf.rows')!.value).toBe(rows);
    expect(markdown).toContain(`Confusions on the ${rowsText} test rows (summed over 3 seeds): `);
    expect(markdown).not.toContain(`${facts.get('conf.total')!.text} test rows`); // 18,000 before
    const caught = facts.get('conf.caught')!.text;
    expect(markdown).toContain(`${caught} of ${facts.get('conf.positives')!.text}`);
    expect(ungroundedNumbers(markdown, facts)).toEqual([]);
    // a comparison of a repeated run with a single one says which counts are summed
    const compared = engine.compare(single, summed, 'technical').markdown;
    expect(compared).toMatch(/false alarms \(summed over 3 seeds\)\./);
    expect(compared).not.toMatch(/false alarms \(summed over 3 seeds\);/);
  });

  it('a comparison with the same seeds is paired: a steady gain is beyond the noise', () => {
    const a = repeated(901, [42, 43, 44], [0.4, 0.5, 0.45]);
    const b = repeated(902, [42, 43, 44], [0.42, 0.53, 0.47]);
    const { markdown, facts } = engine.compare(a, b, 'technical');
    expect(markdown).toContain(
      'is larger than the noise across seeds: a paired t-test across the shared seeds',
    );
    expect(markdown).not.toContain('single run');
    expect(ungroundedNumbers(markdown, facts)).toEqual([]);
  });

  it('with other seeds it is Welch, and the same gain is within the noise', () => {
    const a = repeated(901, [42, 43, 44], [0.4, 0.5, 0.45]);
    const b = repeated(902, [7, 8, 9], [0.42, 0.53, 0.47]);
    const { markdown } = engine.compare(a, b, 'technical');
    expect(markdown).toContain("is within the noise across seeds: Welch's t-test");
    expect(markdown).toContain('neither run is shown to be better');
  });

  it('a single run keeps the single-run caveat and gets no noise sentence', () => {
    const { markdown } = engine.compare(single, repeated(902, [42, 43, 44], [0.42, 0.53, 0.47]), 'technical');
    expect(markdown).toContain('single run');
    expect(markdown).not.toContain('noise across seeds');
  });
});
