import type { EnumOptionsType } from '@rjsf/utils';

/** Above this many options a column widget shows a filter box. */
export const FILTER_THRESHOLD = 12;

export interface ColumnChoice {
  key: string;
  value: unknown;
  label: string;
}

const clean = (value: unknown) => String(value).replace(/\r/g, '');

/**
 * The choices of a column widget: the schema's options (the engine fills them with the dataset's
 * visible columns), plus any current value that is not among them (so it can still be unticked).
 */
export function columnOptions(
  enumOptions: EnumOptionsType[] | undefined,
  current: readonly unknown[],
): ColumnChoice[] {
  const out: ColumnChoice[] = (enumOptions ?? []).map((o, i) => ({
    key: String(i),
    value: o.value,
    label: clean(o.label),
  }));
  for (const value of current) {
    if (value === undefined || value === null || out.some((o) => o.value === value)) continue;
    out.push({ key: `current-${out.length}`, value, label: clean(value) });
  }
  return out;
}
