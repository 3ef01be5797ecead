// The interpretation engine: an output's facts, the rules of its result type, and the reports they
// make (analyze, compare, a chart). Pure: no HTTP, no database; the service hands it outputs.

import { compareFacts, configurationRows, type ConfigurationRow } from './compare-facts';
import type { FactSet } from './facts';
import { outputFacts, type AnalysisSubject } from './output-facts';
import {
  analyzeReport,
  applyRules,
  compareReport,
  renderSentence,
  reportMarkdown,
  type Report,
} from './report';
import { loadRuleSets, type ChartRule, type ChartRuleSet, type Register, type RuleSet } from './rule-set';
import { lossSpreadOf, type LossSpread } from './loss-spread';

export interface AnalysisResult {
  report: Report;
  markdown: string;
  facts: FactSet;
}

/** A metric of two runs side by side, with each run's baseline and the better run. */
export interface MetricRow {
  name: string;
  label: string;
  a: number | null;
  b: number | null;
  baseline_a: number | null;
  baseline_b: number | null;
  better: 'a' | 'b' | 'tie' | null;
}

export interface ComparisonResult extends AnalysisResult {
  /** The spec's data.interpreted. */
  interpreted: { conclusion: string; insights: string[]; recommendations: string[]; definition: string };
  configurations: ConfigurationRow[];
  metrics: MetricRow[];
  curves: { a: Record<string, number[]> | null; b: Record<string, number[]> | null };
  /** Each run's loss spread over its seeds when it was repeated (the curves are then means). */
  spread: { a: LossSpread | null; b: LossSpread | null };
}

export class AnalysisUnavailable extends Error {}

const numberOrNull = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export class AnalysisEngine {
  readonly ruleSets: readonly RuleSet[];
  readonly charts: ChartRuleSet;

  constructor(loaded: { ruleSets: RuleSet[]; charts: ChartRuleSet } = loadRuleSets()) {
    this.ruleSets = loaded.ruleSets;
    this.charts = loaded.charts;
  }

  ruleSetFor(problemId: string): RuleSet {
    const found = this.ruleSets.find((set) => set.problems.includes(problemId));
    if (!found) throw new AnalysisUnavailable(`No analysis rules for the problem ${problemId}.`);
    return found;
  }

  facts(subject: AnalysisSubject): FactSet {
    const rules = this.ruleSetFor(subject.job.kind);
    return outputFacts(subject, rules.metrics, rules.convergence);
  }

  analyze(subject: AnalysisSubject, register: Register): AnalysisResult {
    const facts = this.facts(subject);
    const report = analyzeReport(this.ruleSetFor(subject.job.kind), facts, register);
    return { report, facts, markdown: reportMarkdown(report, register) };
  }

  compare(a: AnalysisSubject, b: AnalysisSubject, register: Register): ComparisonResult {
    const rules = this.ruleSetFor(a.job.kind);
    const facts = compareFacts(
      rules,
      { subject: a, facts: this.facts(a) },
      { subject: b, facts: this.facts(b) },
    );
    const report = compareReport(rules, facts, register);
    return {
      report,
      facts,
      markdown: reportMarkdown(report, register),
      interpreted: {
        conclusion: report.conclusion.join(' '),
        insights: [...report.insights, ...report.caveats],
        recommendations: report.recommendations,
        definition: report.definitions.map((d) => `${d.term}: ${d.text}`).join('\n'),
      },
      configurations: configurationRows(a, b),
      metrics: this.metricRows(rules, a, b, register),
      curves: { a: a.detail.output_data.training_history, b: b.detail.output_data.training_history },
      spread: {
        a: lossSpreadOf(a.detail.output_data.repeats),
        b: lossSpreadOf(b.detail.output_data.repeats),
      },
    };
  }

  private metricRows(
    rules: RuleSet,
    a: AnalysisSubject,
    b: AnalysisSubject,
    register: Register,
  ): MetricRow[] {
    const names = Object.keys(rules.metrics).filter((n) => n in a.detail.metrics || n in b.detail.metrics);
    return names.map((name) => {
      const metric = rules.metrics[name]!;
      const va = numberOrNull(a.detail.metrics[name]);
      const vb = numberOrNull(b.detail.metrics[name]);
      let better: MetricRow['better'] = null;
      if (va !== null && vb !== null && metric.better) {
        if (va === vb) better = 'tie';
        else better = (metric.better === 'lower' ? va < vb : va > vb) ? 'a' : 'b';
      }
      return {
        name,
        label: metric.label[register],
        a: va,
        b: vb,
        baseline_a: numberOrNull(a.detail.baseline?.metrics[name]),
        baseline_b: numberOrNull(b.detail.baseline?.metrics[name]),
        better,
      };
    });
  }

  /** The chart prompt a title names ('Loss over Epochs'), case and spacing aside. */
  chartRule(title: string | null | undefined): ChartRule | null {
    if (!title) return null;
    const wanted = title.trim().toLowerCase();
    return this.charts.charts.find((c) => c.title.toLowerCase() === wanted) ?? null;
  }

  /** A chart of the product read from its output's data; null when the output has no data for it. */
  chart(subject: AnalysisSubject, chart: ChartRule, register: Register): AnalysisResult | null {
    const rules = this.ruleSetFor(subject.job.kind);
    const facts = this.facts(subject);
    const sections = applyRules(chart.rules, rules, facts, register);
    // the chart's first sentence reads what it plots: without those facts the output has no such chart
    if (sections.conclusion.length === 0) return null;
    const report: Report = {
      title: renderSentence(`${chart.title}: {run.name}`, facts) ?? chart.title,
      ...sections,
      definitions: [],
    };
    return { report, facts, markdown: reportMarkdown(report, register) };
  }
}
