// Turns facts into a report with a result type's rules: each rule whose conditions hold and whose
// placeholders all name facts gives one sentence, in the register asked for. Nothing else is written.

import type { Fact, FactSet } from './facts';
import type { Condition, Register, Rule, RuleSet, Section } from './rule-set';

export interface Report {
  title: string;
  conclusion: string[];
  insights: string[];
  recommendations: string[];
  caveats: string[];
  definitions: { term: string; text: string }[];
}

/** The metric a `for_each` rule is applied to: `m` in its keys, its label in `{m.label}`. */
interface MetricScope {
  name: string;
  label: string;
}

const PLACEHOLDER = /\{([A-Za-z0-9_.]+)\}/g;

/** A rule's key with the current metric put in for the `m` segment ('a.m.value' -> 'a.metric.rmse.value'). */
function resolveKey(key: string, scope: MetricScope | null): string {
  if (!scope) return key;
  return key
    .split('.')
    .map((part) => (part === 'm' ? `metric.${scope.name}` : part))
    .join('.');
}

function holds(condition: Condition, fact: Fact | undefined): boolean {
  if (condition.exists !== undefined && (fact !== undefined) !== condition.exists) return false;
  if (condition.equals !== undefined && fact?.value !== condition.equals) return false;
  if (condition.lt !== undefined && !(typeof fact?.value === 'number' && fact.value < condition.lt))
    return false;
  if (condition.gt !== undefined && !(typeof fact?.value === 'number' && fact.value > condition.gt))
    return false;
  return true;
}

/** The sentence, or null when a placeholder names no fact (the rule does not apply to this output). */
export function renderSentence(
  template: string,
  facts: FactSet,
  scope: MetricScope | null = null,
): string | null {
  let missing = false;
  const text = template.replace(PLACEHOLDER, (_whole, key: string) => {
    if (key === 'm.label' && scope) return scope.label;
    const fact = facts.get(resolveKey(key, scope));
    if (!fact) missing = true;
    return fact?.text ?? '';
  });
  return missing ? null : capitalise(text);
}

const unprefixed = (facts: FactSet, prefix: string): FactSet =>
  new Map(
    [...facts]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, fact]) => [key.slice(prefix.length), fact]),
  );

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function applies(rule: Rule, facts: FactSet, scope: MetricScope | null): boolean {
  return (rule.when ?? []).every((c) => holds(c, facts.get(resolveKey(c.fact, scope))));
}

/** The metrics the facts hold a value of (under `prefix`, e.g. 'a.'), in the rule file's order. */
function presentMetrics(ruleSet: RuleSet, facts: FactSet, prefixes: string[]): string[] {
  return Object.keys(ruleSet.metrics).filter((name) =>
    prefixes.some((prefix) => facts.has(`${prefix}metric.${name}.value`)),
  );
}

/** Applies `rules` to `facts`; sentences grouped by section, each once. */
export function applyRules(
  rules: readonly Rule[],
  ruleSet: RuleSet,
  facts: FactSet,
  register: Register,
  metricPrefixes: string[] = [''],
): Record<Section, string[]> {
  const sections: Record<Section, string[]> = {
    conclusion: [],
    insights: [],
    recommendations: [],
    caveats: [],
  };
  const metrics = presentMetrics(ruleSet, facts, metricPrefixes);
  for (const rule of rules) {
    const scopes: (MetricScope | null)[] =
      rule.for_each === 'metric'
        ? metrics.map((name) => ({ name, label: ruleSet.metrics[name]!.label[register] }))
        : [null];
    for (const scope of scopes) {
      if (!applies(rule, facts, scope)) continue;
      const sentence = renderSentence(rule[register], facts, scope);
      if (sentence && !sections[rule.section].includes(sentence)) sections[rule.section].push(sentence);
    }
  }
  return sections;
}

/** The definitions of the result type and of each metric the output reports. */
function definitions(ruleSet: RuleSet, facts: FactSet, register: Register, prefixes: string[]) {
  // the result type's own definition reads its facts from run A in a comparison
  const single = prefixes.includes('') ? facts : unprefixed(facts, 'a.');
  const found: Report['definitions'] = [];
  const own = renderSentence(ruleSet.definition[register], single);
  const problem = single.get('run.problem');
  if (own) found.push({ term: problem?.text ?? ruleSet.id, text: own });
  for (const name of presentMetrics(ruleSet, facts, prefixes)) {
    const metric = ruleSet.metrics[name]!;
    found.push({ term: metric.label[register], text: metric.definition[register] });
  }
  return found;
}

/** One output's report. */
export function analyzeReport(ruleSet: RuleSet, facts: FactSet, register: Register): Report {
  const sections = applyRules(ruleSet.analyze, ruleSet, facts, register);
  return {
    title:
      renderSentence(ruleSet.title[register], facts) ?? renderSentence('{run.name}', facts) ?? 'Analysis',
    ...sections,
    definitions: definitions(ruleSet, facts, register, ['']),
  };
}

const COMPARE_TITLES: Record<Register, string> = {
  technical: 'Comparison of {a.run.name} and {b.run.name}',
  non_technical: '{a.run.name} and {b.run.name} side by side',
};

/** Two outputs' report, from the comparison facts (a., b. and cmp.). */
export function compareReport(ruleSet: RuleSet, facts: FactSet, register: Register): Report {
  const sections = applyRules(ruleSet.compare, ruleSet, facts, register, ['a.', 'b.']);
  return {
    title: renderSentence(COMPARE_TITLES[register], facts) ?? 'Comparison',
    ...sections,
    definitions: definitions(ruleSet, facts, register, ['a.', 'b.']),
  };
}

const SECTION_HEADINGS: Record<Register, Record<Section | 'definitions', string>> = {
  technical: {
    conclusion: 'Conclusion',
    insights: 'Insights',
    recommendations: 'Recommendations',
    caveats: 'Caveats',
    definitions: 'Definitions',
  },
  non_technical: {
    conclusion: 'In short',
    insights: 'What we found',
    recommendations: 'What to do next',
    caveats: 'Keep in mind',
    definitions: 'Words used here',
  },
};

/** The report as Markdown (the analyze call's message content and the download). */
export function reportMarkdown(report: Report, register: Register, note: string | null = null): string {
  const headings = SECTION_HEADINGS[register];
  const lines = [`# ${report.title}`, ''];
  if (note) lines.push(`> ${note}`, '');
  if (report.conclusion.length > 0)
    lines.push(`## ${headings.conclusion}`, '', report.conclusion.join(' '), '');
  for (const section of ['insights', 'recommendations', 'caveats'] as const) {
    if (report[section].length === 0) continue;
    lines.push(`## ${headings[section]}`, '', ...report[section].map((s) => `- ${s}`), '');
  }
  if (report.definitions.length > 0) {
    lines.push(
      `## ${headings.definitions}`,
      '',
      ...report.definitions.map((d) => `- **${d.term}**: ${d.text}`),
      '',
    );
  }
  return lines.join('\n');
}
