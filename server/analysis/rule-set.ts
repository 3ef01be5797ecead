// The interpretation rules: one data file per result type in schemas/analysis/, checked by
// schemas/meta/analysis.schema.json. Its sentences hold no digits of their own (the meta-schema refuses
// them), so a number in a report can only come from a fact placeholder.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createPlainAjv } from '../../src/engine/ajv';
import type { NumberFormat } from './facts';

export type Register = 'technical' | 'non_technical';
export type Registers = Record<Register, string>;
export type Section = 'conclusion' | 'insights' | 'recommendations' | 'caveats';

export interface MetricRule {
  label: Registers;
  better?: 'higher' | 'lower';
  format: NumberFormat;
  definition: Registers;
}

export interface ConvergenceLimits {
  /** The best-so-far test loss is "levelled off" within this share of the whole improvement. */
  plateau_tolerance: number;
  /** A plateau before this share of the epochs is an early one. */
  early_plateau_share: number;
  /** The final test loss above its best by more than this share has risen again. */
  overfit_rise: number;
  /** A final test/train gap wider than this share of the train loss is a wide one. */
  gap_ratio: number;
}

export interface Condition {
  fact: string;
  exists?: boolean;
  equals?: string | number | boolean;
  lt?: number;
  gt?: number;
}

export interface Rule {
  section: Section;
  /** Repeat the rule for each metric the output has; `m` in a fact key names the current metric. */
  for_each?: 'metric';
  when?: Condition[];
  technical: string;
  non_technical: string;
}

export interface ChartRule {
  title: string;
  prompt: string;
  rules: Rule[];
}

export interface RuleSet {
  id: string;
  problems: string[];
  title: Registers;
  definition: Registers;
  primary_metric?: string;
  convergence: ConvergenceLimits;
  metrics: Record<string, MetricRule>;
  analyze: Rule[];
  compare: Rule[];
}

export interface ChartRuleSet {
  default_prompt: string;
  charts: ChartRule[];
}

export const ANALYSIS_DIR = path.resolve(
  path.dirname(new URL(import.meta.url).pathname),
  '../../schemas/analysis',
);
const META = path.resolve(ANALYSIS_DIR, '../meta/analysis.schema.json');
export const CHARTS_FILE = 'charts.json';

export class RuleSetError extends Error {}

/** Every rule file of `dir`, checked by the meta-schema; a broken one stops the start with its issues. */
export function loadRuleSets(dir: string = ANALYSIS_DIR): { ruleSets: RuleSet[]; charts: ChartRuleSet } {
  const meta = JSON.parse(readFileSync(META, 'utf8')) as Record<string, unknown>;
  const ajv = createPlainAjv();
  ajv.addSchema(meta, 'analysis');
  const ruleSets: RuleSet[] = [];
  let charts: ChartRuleSet | null = null;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const data = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as unknown;
    const ref = file === CHARTS_FILE ? 'analysis#/$defs/chartFile' : 'analysis#/$defs/resultFile';
    const validate = ajv.getSchema(ref)!;
    if (!validate(data)) {
      const issues = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
      throw new RuleSetError(`schemas/analysis/${file}: ${issues.join('; ')}`);
    }
    if (file === CHARTS_FILE) charts = data as ChartRuleSet;
    else ruleSets.push(data as RuleSet);
  }
  if (!charts) throw new RuleSetError(`schemas/analysis/${CHARTS_FILE} is missing`);
  const claimed = new Map<string, string>();
  for (const set of ruleSets) {
    for (const problem of set.problems) {
      const other = claimed.get(problem);
      if (other) throw new RuleSetError(`schemas/analysis: ${problem} is in both ${other} and ${set.id}`);
      claimed.set(problem, set.id);
    }
  }
  return { ruleSets, charts };
}
