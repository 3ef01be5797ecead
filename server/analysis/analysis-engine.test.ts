// The interpretation engine on real outputs (fixtures recorded from real runs of every problem by
// record-fixtures.test.ts): every number in every report, both registers, analyze and compare, is one
// of the facts of the outputs it describes; a fact changed after the report was written is caught.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegistry } from '../../src/engine/node/load-schemas';
import type { JobRecord } from '../jobs/jobs-repository';
import { outputDetail } from '../outputs/output-detail';
import { AnalysisEngine } from './analysis-engine';
import { formatNumber, type FactSet } from './facts';
import { numbersIn, ungroundedNumbers } from './grounding';
import type { AnalysisSubject } from './output-facts';
import { reportMarkdown } from './report';
import type { Register } from './rule-set';

const FIXTURES = path.resolve('server/analysis/fixtures');
const REGISTERS: Register[] = ['technical', 'non_technical'];
const registry = loadRegistry();
const engine = new AnalysisEngine();

export function fixtureSubject(name: string): AnalysisSubject {
  const job = JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as JobRecord;
  return { job, detail: outputDetail(job, []), problemName: registry.getProblem(job.kind).name };
}

const names = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();
const subjects = new Map(names.map((name) => [name, fixtureSubject(name)]));

/** Every report's text: the Markdown and, for a comparison, the interpreted fields. */
function allText(markdown: string, extra: string[] = []) {
  return [markdown, ...extra].join('\n');
}

describe('the interpretation engine', () => {
  it('has a fixture of every problem and a rule file claiming each problem', () => {
    const kinds = new Set([...subjects.values()].map((s) => s.job.kind));
    for (const problem of registry.problems) {
      expect(kinds, problem.id).toContain(problem.id);
      expect(() => engine.ruleSetFor(problem.id), problem.id).not.toThrow();
    }
  });

  for (const [name, subject] of subjects) {
    for (const register of REGISTERS) {
      it(`${name} (${register}): every number of the report is a fact of the output`, () => {
        const { markdown, facts, report } = engine.analyze(subject, register);
        expect(report.conclusion.length, markdown).toBeGreaterThan(0);
        expect(report.insights.length, markdown).toBeGreaterThan(0);
        expect(ungroundedNumbers(markdown, facts), markdown).toEqual([]);
        expect(numbersIn(markdown).length).toBeGreaterThan(0);
      });
    }
  }

  // Pairs of the same problem (compare needs it): each fixture against every other of its problem.
  const pairs = [...subjects.keys()].flatMap((a) =>
    [...subjects.keys()]
      .filter((b) => b !== a && subjects.get(b)!.job.kind === subjects.get(a)!.job.kind)
      .map((b) => [a, b] as const),
  );
  it('compares at least one pair of every problem that has two fixtures', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(6);
  });
  for (const [a, b] of pairs) {
    for (const register of REGISTERS) {
      it(`${a} vs ${b} (${register}): every number of the comparison is a fact of the two outputs`, () => {
        const result = engine.compare(subjects.get(a)!, subjects.get(b)!, register);
        const { conclusion, insights, recommendations, definition } = result.interpreted;
        const text = allText(result.markdown, [conclusion, ...insights, ...recommendations, definition]);
        expect(conclusion, text).not.toBe('');
        expect(ungroundedNumbers(text, result.facts), text).toEqual([]);
      });
    }
  }

  it("every chart reading of every output (the spec's three chart prompts) states only its facts", () => {
    let read = 0;
    for (const [name, subject] of subjects) {
      for (const chart of engine.charts.charts) {
        for (const register of REGISTERS) {
          const result = engine.chart(subject, chart, register);
          if (!result) continue;
          read += 1;
          expect(ungroundedNumbers(result.markdown, result.facts), `${name} ${chart.title}`).toEqual([]);
        }
      }
    }
    // loss curves of every trained model, accuracy and confusions of the classifiers
    expect(read).toBeGreaterThanOrEqual(12);
    expect(
      engine.chart(
        subjects.get('brain-fcn')!,
        engine.chartRule('Accuracy vs Validation Accuracy')!,
        'technical',
      ),
    ).not.toBeNull();
    expect(
      engine.chart(subjects.get('portfolio-vqe')!, engine.chartRule('Loss over Epochs')!, 'technical'),
    ).toBeNull();
  });

  it('a deliberately wrong fact makes the check fail', () => {
    const { markdown, facts } = engine.analyze(subjects.get('stock-lstm')!, 'technical');
    const rmse = facts.get('metric.rmse.value')!;
    expect(markdown).toContain(rmse.text);
    const wrong: FactSet = new Map(facts);
    wrong.set(rmse.key, { ...rmse, value: 0.5, text: formatNumber(0.5, 'decimal') });
    expect(ungroundedNumbers(markdown, wrong)).toContain(rmse.text);
  });

  it('a report that states a number no fact holds fails the check', () => {
    const { report, facts } = engine.analyze(subjects.get('fraud-vqc')!, 'non_technical');
    const tampered = reportMarkdown(
      { ...report, insights: [...report.insights, 'It is right 97 times in 100.'] },
      'non_technical',
    );
    expect(ungroundedNumbers(tampered, facts)).toEqual(['97', '100']);
  });

  it('reads convergence, baselines and confusions from the result', () => {
    const lstm = engine.facts(subjects.get('stock-lstm')!);
    const losses = subjects.get('stock-lstm')!.job.result!.losses as { test: number[] };
    const best = losses.test.indexOf(Math.min(...losses.test)) + 1;
    expect(lstm.get('conv.best_epoch')?.value).toBe(best);
    expect(lstm.get('conv.epochs')?.value).toBe(losses.test.length);
    expect(lstm.get('metric.rmse.better')?.value).toBe(false);
    const fraud = engine.facts(subjects.get('fraud-vqc')!);
    const [[tn, fp], [fn, tp]] = subjects.get('fraud-vqc')!.job.result!.confusion_matrix as number[][];
    expect([
      fraud.get('conf.caught')?.value,
      fraud.get('conf.missed')?.value,
      fraud.get('conf.false_alarms')?.value,
    ]).toEqual([tp, fn, fp]);
    expect(fraud.get('conf.negatives')?.value).toBe(tn! + fp!);
    const portfolio = engine.facts(subjects.get('portfolio-vqe')!);
    expect(portfolio.get('sel.found_optimum')?.value).toBe(true);
    expect(portfolio.get('quantum.qubits')?.value).toBe(5);
  });

  it('writes the two registers differently', () => {
    const technical = engine.analyze(subjects.get('demand-lstm')!, 'technical').markdown;
    const plain = engine.analyze(subjects.get('demand-lstm')!, 'non_technical').markdown;
    expect(technical).toContain('RMSE');
    expect(plain).not.toContain('RMSE');
    expect(plain).toContain('typical error');
  });
});
