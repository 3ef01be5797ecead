// The landing demo's historical filter (spec platform-shell.md section 5, "Landing demo filters"): none,
// a year, a month (YYYY-MM) or a date range, checked with the spec's messages. Pure, so the stream
// route and the browser's demo answer the same thing for the same query.

/** Inclusive ISO date bounds of the rows to keep; null bounds keep everything. */
export interface HistoryFilter {
  mode: 'none' | 'year' | 'month' | 'range';
  from: string | null;
  to: string | null;
}

export interface FilterQuery {
  year?: number | string;
  month?: string;
  start_date?: string;
  end_date?: string;
}

export interface FilterFieldError {
  field: string;
  message: string;
}

export const FILTER_MESSAGES = {
  month: 'Invalid month format. Use YYYY-MM (e.g., 2023-05)',
  bothDates: 'Please provide both start and end dates.',
  order: 'Start date must be before end date.',
  noData: 'No data found for the specified filters.',
  oneFilter: 'Give one filter: year, month, or start_date and end_date.',
  year: 'Year must be a four-digit year (e.g., 2023).',
  date: 'Dates use YYYY-MM-DD (e.g., 2023-05-01).',
} as const;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a real calendar day written YYYY-MM-DD. */
export function isIsoDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

const lastDayOfMonth = (year: number, month: number) =>
  new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);

/** The filter a query asks for, or the field errors that refuse it (each naming its query key). */
export function parseHistoryFilter(
  query: FilterQuery,
): { ok: true; filter: HistoryFilter } | { ok: false; errors: FilterFieldError[] } {
  const has = (v: unknown) => v !== undefined && v !== '';
  const year = has(query.year) ? String(query.year) : null;
  const month = has(query.month) ? query.month! : null;
  const start = has(query.start_date) ? query.start_date! : null;
  const end = has(query.end_date) ? query.end_date! : null;
  const modes = [year !== null, month !== null, start !== null || end !== null].filter(Boolean).length;
  if (modes > 1) return { ok: false, errors: [{ field: '/year', message: FILTER_MESSAGES.oneFilter }] };
  if (year !== null) {
    if (!/^\d{4}$/.test(year))
      return { ok: false, errors: [{ field: '/year', message: FILTER_MESSAGES.year }] };
    return { ok: true, filter: { mode: 'year', from: `${year}-01-01`, to: `${year}-12-31` } };
  }
  if (month !== null) {
    const match = MONTH.exec(month);
    if (!match) return { ok: false, errors: [{ field: '/month', message: FILTER_MESSAGES.month }] };
    const last = lastDayOfMonth(Number(match[1]), Number(match[2]));
    return { ok: true, filter: { mode: 'month', from: `${month}-01`, to: last } };
  }
  if (start !== null || end !== null) {
    if (start === null || end === null) {
      const field = start === null ? '/start_date' : '/end_date';
      return { ok: false, errors: [{ field, message: FILTER_MESSAGES.bothDates }] };
    }
    const errors = [
      ...(isIsoDay(start) ? [] : [{ field: '/start_date', message: FILTER_MESSAGES.date }]),
      ...(isIsoDay(end) ? [] : [{ field: '/end_date', message: FILTER_MESSAGES.date }]),
    ];
    if (errors.length > 0) return { ok: false, errors };
    if (start > end) return { ok: false, errors: [{ field: '/start_date', message: FILTER_MESSAGES.order }] };
    return { ok: true, filter: { mode: 'range', from: start, to: end } };
  }
  return { ok: true, filter: { mode: 'none', from: null, to: null } };
}

/** Whether a row dated `day` (YYYY-MM-DD) passes the filter. */
export const keepsDay = (filter: HistoryFilter, day: string) =>
  (filter.from === null || day >= filter.from) && (filter.to === null || day <= filter.to);

/** Whether the filter can keep any day between first and last (inclusive). */
export const overlaps = (filter: HistoryFilter, first: string, last: string) =>
  (filter.from === null || filter.from <= last) && (filter.to === null || filter.to >= first);
