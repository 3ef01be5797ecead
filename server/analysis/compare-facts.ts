// The facts of two outputs side by side: each run's own (a., b.), and per metric which run is better,
// by how much, and what differs between their configurations.

import { isPlainObject } from '../../src/engine';
import { FactBuilder, formatNumber, prefixed, type FactSet } from './facts';
import { jobResultOf } from '../jobs/job-result';
import { redactDeviceTokens } from '../outputs/output-detail';
import type { AnalysisSubject } from './output-facts';
import { differenceAgainstNoise, type SeedValues } from './seed-noise';
import type { RuleSet } from './rule-set';

export interface ConfigurationRow {
  /** Where the setting sits in app_data ('model_configurations.epochs'). */
  key: string;
  a: unknown;
  b: unknown;
  differs: boolean;
}

/** app_data's settings as dotted keys (dataset, preprocess, model configurations); arrays stay whole. */
export function flatten(
  value: unknown,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  if (!isPlainObject(value)) {
    if (prefix) out[prefix] = value;
    return out;
  }
  for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  return out;
}

const SETTINGS = ['dataset', 'preprocess', 'model_configurations'] as const;

/** Both runs' settings, the differing ones first (each group in app_data order). */
export function configurationRows(a: AnalysisSubject, b: AnalysisSubject): ConfigurationRow[] {
  const pick = (s: AnalysisSubject) =>
    flatten(
      // Masked: the settings reach the report, its facts and the LLM's prompt.
      redactDeviceTokens(
        Object.fromEntries(SETTINGS.map((k) => [k, s.job.app_data?.[k]]).filter(([, v]) => v !== undefined)),
      ),
    );
  const left = pick(a);
  const right = pick(b);
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  const rows = keys.map((key) => ({
    key,
    a: left[key] ?? null,
    b: right[key] ?? null,
    differs: JSON.stringify(left[key] ?? null) !== JSON.stringify(right[key] ?? null),
  }));
  return [...rows.filter((r) => r.differs), ...rows.filter((r) => !r.differs)];
}

const shown = (value: unknown): string => {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'number') return formatNumber(value, 'decimal');
  if (Array.isArray(value)) return value.map(shown).join(', ');
  return String(value);
};

/** 'epochs: 50 → 20' for each differing setting, by its last key. */
const differenceText = (rows: ConfigurationRow[]) =>
  rows
    .filter((r) => r.differs)
    .map((r) => `${r.key.split('.').at(-1)!.replace(/_/g, ' ')}: ${shown(r.a)} → ${shown(r.b)}`)
    .join('; ');

/** Each run's name in a comparison; two outputs of the same name are told apart by their ids. */
function runNames(a: AnalysisSubject, b: AnalysisSubject): [string, string] {
  const [na, nb] = [a.detail.name, b.detail.name];
  if (na !== nb) return [na, nb];
  return [`${na} (output ${a.detail.id})`, `${nb} (output ${b.detail.id})`];
}

/** The per-seed values of one metric of a repeated run, or null for a single run. */
function seedValues(subject: AnalysisSubject, metric: string): SeedValues | null {
  const repeats = jobResultOf(subject.job)?.repeats;
  const stat = repeats?.metrics[metric];
  return repeats && stat ? { seeds: repeats.seeds, values: stat.values } : null;
}

/** Whether the two runs' difference on a metric is larger than the noise across their seeds. */
function noiseFacts(own: FactBuilder, key: string, a: AnalysisSubject, b: AnalysisSubject, metric: string) {
  const va = seedValues(a, metric);
  const vb = seedValues(b, metric);
  if (!va || !vb) return;
  const test = differenceAgainstNoise(va, vb);
  if (!test) return;
  own.text(
    `${key}.noise_test`,
    test.test === 'paired' ? 'a paired t-test across the shared seeds' : "Welch's t-test",
  );
  own.number(`${key}.p_value`, test.p, 'decimal');
  own.flag(`${key}.beyond_noise`, test.beyondNoise);
}

export function compareFacts(
  ruleSet: RuleSet,
  a: { subject: AnalysisSubject; facts: FactSet },
  b: { subject: AnalysisSubject; facts: FactSet },
): FactSet {
  const own = new FactBuilder();
  const [nameA, nameB] = runNames(a.subject, b.subject);
  own.text('a.run.name', nameA);
  own.text('b.run.name', nameB);
  for (const [name, metric] of Object.entries(ruleSet.metrics)) {
    const va = a.facts.get(`metric.${name}.value`)?.value;
    const vb = b.facts.get(`metric.${name}.value`)?.value;
    if (typeof va !== 'number' || typeof vb !== 'number' || !metric.better) continue;
    const key = `cmp.metric.${name}`;
    own.flag(`${key}.tie`, va === vb);
    if (va === vb) continue;
    const aWins = metric.better === 'lower' ? va < vb : va > vb;
    const [better, worse] = aWins ? [nameA, nameB] : [nameB, nameA];
    const [bv, wv] = aWins ? [va, vb] : [vb, va];
    own.text(`${key}.better_run`, better);
    own.text(`${key}.worse_run`, worse);
    own.number(`${key}.better_value`, bv, metric.format);
    own.number(`${key}.worse_value`, wv, metric.format);
    own.number(`${key}.difference`, Math.abs(va - vb), metric.format);
    if (wv !== 0) own.number(`${key}.relative`, (Math.abs(va - vb) / Math.abs(wv)) * 100, 'percent');
    noiseFacts(own, key, a.subject, b.subject, name);
  }
  const repeatedA = a.facts.get('data.repeated')?.value === true;
  const repeatedB = b.facts.get('data.repeated')?.value === true;
  own.flag('cmp.both_repeated', repeatedA && repeatedB);
  const rows = configurationRows(a.subject, b.subject);
  const differing = rows.filter((r) => r.differs);
  own.number('cmp.config_difference_count', differing.length, 'integer');
  own.text('cmp.config_differences', differenceText(rows));
  const hashA = a.subject.detail.dataset?.sha256;
  const hashB = b.subject.detail.dataset?.sha256;
  if (hashA && hashB) own.flag('cmp.same_dataset', hashA === hashB);
  // the names told apart replace each run's own
  return new Map([...prefixed('a.', a.facts), ...prefixed('b.', b.facts), ...own.facts]);
}
