import {
  fieldOptions,
  formsOfTab,
  getPointer,
  isPlainObject,
  lookupField,
  parsePointer,
  type AppData,
  type FormKey,
  type Problem,
} from '../../../../engine';
import { diffFormValues, sameValue } from '../../../../renderers/form-diff';
import type { OutputSummary } from '../../../api/applications';
import type { OutputDetail } from '../../../api/outputs';
import { metricRows } from './output-rules';

/** The workspace's Outputs tab rules (spec section 2, Outputs tab; issue #11 'Beyond the spec'). */

export const SAME_CONFIGURATION = 'Same as the current configuration.';
export const SPLITS_DIFFER =
  'These outputs ran on different datasets or splits: their metrics are not directly comparable.';

/**
 * Search: a whole number is an exact output id; otherwise (or when no id matches) the name or id
 * containing the text, ignoring case. Empty text restores the full list.
 */
export function searchOutputs<T extends Pick<OutputSummary, 'id' | 'name'>>(
  outputs: T[],
  query: string,
): T[] {
  const text = query.trim().toLowerCase();
  if (!text) return outputs;
  if (/^\d+$/.test(text)) {
    const exact = outputs.filter((output) => output.id === Number(text));
    if (exact.length > 0) return exact;
  }
  return outputs.filter(
    (output) => output.name.toLowerCase().includes(text) || String(output.id).includes(text),
  );
}

const show = (value: unknown): string => {
  if (value === undefined || value === null || value === '') return '(none)';
  if (Array.isArray(value)) return value.map(show).join(', ');
  if (isPlainObject(value)) return JSON.stringify(value);
  return String(value);
};

export interface ConfigChange {
  path: string;
  label: string;
  from: string;
  to: string;
}

/** The field of the problem's forms at an app_data path, when the schema declares one. */
function fieldAt(problem: Problem, path: string) {
  const [form, ...segments] = parsePointer(path);
  const schema = form ? problem.forms[form as FormKey]?.schema : undefined;
  return schema && segments.length > 0 ? lookupField(schema, segments) : undefined;
}

/** A field's label from the problem's schema (its title), else its name. */
function labelOf(problem: Problem, path: string): string {
  const title = fieldAt(problem, path)?.schema.title;
  const segments = parsePointer(path);
  return typeof title === 'string' && title ? title : (segments[segments.length - 1] ?? path);
}

/** A value as the form shows it: an option's label ('IBM Kyiv (snapshot)' for fake_kyiv), else the value. */
function valueText(problem: Problem, path: string, value: unknown): string {
  const field = fieldAt(problem, path);
  const options =
    field && !Array.isArray(value) ? fieldOptions(field.schema, {}, problem.platform) : undefined;
  const option = options?.find((o) => o.value === value);
  return option && option.label !== '' ? option.label : show(value);
}

/**
 * The output's configuration against the current app_data, field by field over the problem's forms:
 * 'from' is what the run used, 'to' what the workspace holds now.
 */
export function configurationChanges(problem: Problem, ran: AppData, current: AppData): ConfigChange[] {
  const changes = diffFormValues('', problem.formKeys, ran, current);
  return changes.map(({ path }) => ({
    path,
    label: labelOf(problem, path),
    from: valueText(problem, path, getPointer(ran, path)),
    to: valueText(problem, path, getPointer(current, path)),
  }));
}

/** The data a run's metrics are measured on: its dataset file and the Dataset tab's forms (split, features). */
function splitOf(problem: Problem, detail: OutputDetail): unknown {
  const appData = (detail.app_data ?? {}) as AppData;
  const forms = Object.fromEntries(formsOfTab(problem, 'dataset').map((key) => [key, appData[key]]));
  return { file: detail.dataset?.sha256 ?? null, rows: detail.dataset?.rows_used ?? null, forms };
}

export interface Comparison {
  names: string[];
  rows: { metric: string; values: (number | undefined)[] }[];
  sameSplit: boolean;
}

/** Metrics of the pinned outputs side by side (baseline_* keys are the baselines', as in one output). */
export function compareOutputs(problem: Problem, details: OutputDetail[]): Comparison {
  const perOutput = details.map((detail) => metricRows(detail.metrics, null));
  const metrics: string[] = [];
  for (const rows of perOutput)
    for (const row of rows) if (!metrics.includes(row.name)) metrics.push(row.name);
  const first = details[0] ? splitOf(problem, details[0]) : null;
  return {
    names: details.map((detail) => `#${detail.id} ${detail.trained_model_type ?? ''}`.trim()),
    rows: metrics.map((metric) => ({
      metric,
      values: perOutput.map((rows) => rows.find((row) => row.name === metric)?.model),
    })),
    sameSplit: details.every((detail) => sameValue(splitOf(problem, detail), first)),
  };
}
