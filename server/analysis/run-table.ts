// An application's outputs as a run table (as MLflow and Weights & Biases show runs): each run's
// settings, metrics and baseline, and per-epoch losses; the metric columns labelled by the result
// type's rules, the settings that differ between runs first.

import { isPlainObject } from '../../src/engine';
import type { RunRecord } from '../applications/applications-repository';
import { modelTypeOf, redactDeviceTokens } from '../outputs/output-detail';
import { flatten } from './compare-facts';
import { lossSpreadOf, type LossSpread } from './loss-spread';
import type { RuleSet } from './rule-set';

type Setting = string | number | boolean | null;

export interface RunRow {
  id: number;
  name: string;
  status: string;
  created_at: string;
  execution_time: number | null;
  model: string | null;
  metrics: Record<string, number>;
  baseline: Record<string, number>;
  settings: Record<string, Setting>;
  history: { train_loss: number[]; test_loss: number[] } | null;
  /** A run repeated over seeds: the history is the mean, this the sd beside it. */
  spread: LossSpread | null;
}

export interface RunTable {
  runs: RunRow[];
  metrics: { name: string; label: string; better: 'higher' | 'lower' | null }[];
  /** Setting keys, those whose values differ between the runs first. */
  settings: string[];
}

const numbers = (value: unknown): Record<string, number> =>
  isPlainObject(value)
    ? Object.fromEntries(
        Object.entries(value).filter(
          (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
        ),
      )
    : {};

const series = (value: unknown): number[] =>
  Array.isArray(value) ? value.filter((v): v is number => typeof v === 'number') : [];

/** A setting shown in a cell: scalars as they are, a list joined. */
const cell = (value: unknown): Setting =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value)
    ? (value as Setting)
    : Array.isArray(value)
      ? value.map(String).join(', ')
      : JSON.stringify(value);

function rowOf(run: RunRecord): RunRow {
  const result = run.result ?? {};
  const losses = isPlainObject(result.losses) ? result.losses : null;
  const configured = redactDeviceTokens({
    preprocess: run.app_data?.preprocess,
    model_configurations: run.app_data?.model_configurations,
  });
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    created_at: run.created_at,
    execution_time: run.execution_time,
    // the row holds only part of the result, so its model is read directly, else from the body
    model:
      typeof result.model === 'string' && result.model
        ? result.model
        : modelTypeOf({ params: run.params, result: null }),
    metrics: numbers(result.metrics),
    baseline: numbers(isPlainObject(result.baseline) ? result.baseline.metrics : null),
    settings: Object.fromEntries(
      Object.entries(flatten(configured)).map(([key, value]) => [key, cell(value)]),
    ),
    history: losses ? { train_loss: series(losses.train), test_loss: series(losses.test) } : null,
    spread: lossSpreadOf(result.repeats),
  };
}

export function runTable(records: RunRecord[], rules: RuleSet | null): RunTable {
  const runs = records.map(rowOf);
  const present = new Set(runs.flatMap((r) => Object.keys(r.metrics)));
  const declared = rules ? Object.keys(rules.metrics).filter((name) => present.has(name)) : [];
  const others = [...present].filter((name) => !declared.includes(name)).sort();
  const metrics = [...declared, ...others].map((name) => ({
    name,
    label: rules?.metrics[name]?.label.technical ?? name,
    better: rules?.metrics[name]?.better ?? null,
  }));
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.settings)))];
  const differs = (key: string) => new Set(runs.map((r) => JSON.stringify(r.settings[key] ?? null))).size > 1;
  return { runs, metrics, settings: [...keys.filter(differs), ...keys.filter((k) => !differs(k))] };
}
