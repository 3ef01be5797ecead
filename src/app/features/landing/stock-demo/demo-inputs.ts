// The demo's inputs and their rules (spec platform-shell.md section 5, "Landing demo filters", and
// section 9's limits): the historical filter checked with the engine's messages, the prediction
// request built from the period (week = today plus 6 days; month = today plus 29 days).

import { FILTER_MESSAGES, parseHistoryFilter, type HistoryFilter } from '../../../../engine/history-filter';
import { addDays, DEMO_PERIODS, PREDICTION_MESSAGES, type DemoPeriod } from '../../../../engine/stock-demo';
import type { PredictionMessage } from './prediction-socket';

export type FilterMode = 'none' | 'year' | 'month' | 'range';

export interface DemoInputs {
  symbol: string;
  model: 'classical' | 'quantum';
  period: DemoPeriod;
  /** The single day's prediction date (YYYY-MM-DD). */
  date: string;
  filterMode: FilterMode;
  year: string;
  month: string;
  startDate: string;
  endDate: string;
}

export const FIRST_YEAR = 2019;
export const LAST_YEAR = 2025;
export const FIRST_MONTH = '2019-01';
export const FIRST_DAY = '2019-01-01';
export const DEBOUNCE_MS = 1200;

export const initialInputs = (today: string): DemoInputs => ({
  symbol: 'AAPL',
  model: 'classical',
  period: 'day',
  date: today,
  filterMode: 'none',
  year: '2023',
  month: '',
  startDate: '',
  endDate: '',
});

/** The history filter the inputs ask for, or the message that refuses them. */
export function historyFilterOf(
  inputs: DemoInputs,
  today: string,
): { ok: true; filter: HistoryFilter } | { ok: false; message: string } {
  const query =
    inputs.filterMode === 'year'
      ? { year: inputs.year }
      : inputs.filterMode === 'month'
        ? { month: inputs.month.trim() || 'empty' }
        : inputs.filterMode === 'range'
          ? { start_date: inputs.startDate, end_date: inputs.endDate }
          : {};
  if (inputs.filterMode === 'year') {
    const year = Number(inputs.year);
    if (!Number.isInteger(year) || year < FIRST_YEAR || year > LAST_YEAR) {
      return { ok: false, message: `Choose a year from ${FIRST_YEAR} to ${LAST_YEAR}.` };
    }
  }
  if (inputs.filterMode === 'range' && (!inputs.startDate || !inputs.endDate)) {
    return { ok: false, message: FILTER_MESSAGES.bothDates };
  }
  const parsed = parseHistoryFilter(query);
  if (!parsed.ok) return { ok: false, message: parsed.errors[0]!.message };
  if (inputs.filterMode === 'month') {
    const max = today.slice(0, 7);
    if (inputs.month < FIRST_MONTH || inputs.month > max) {
      return { ok: false, message: `Choose a month from ${FIRST_MONTH} to ${max}.` };
    }
  }
  if (inputs.filterMode === 'range' && (inputs.startDate < FIRST_DAY || inputs.endDate > today)) {
    return { ok: false, message: `Choose dates from ${FIRST_DAY} to ${today}.` };
  }
  return parsed;
}

/** The first and last prediction day the inputs ask for. */
export function predictionDays(inputs: DemoInputs, today: string): { start: string; end: string } {
  if (inputs.period === 'day') return { start: inputs.date, end: inputs.date };
  return { start: today, end: addDays(today, DEMO_PERIODS[inputs.period]) };
}

/** The socket message for the inputs, or the message refusing them (a single day before today). */
export function predictionMessageOf(
  inputs: DemoInputs,
  today: string,
): { ok: true; message: PredictionMessage } | { ok: false; message: string } {
  const { start, end } = predictionDays(inputs, today);
  const base = { symbol: inputs.symbol, model: inputs.model, period: inputs.period };
  if (inputs.period === 'day') {
    if (!inputs.date) return { ok: false, message: PREDICTION_MESSAGES.date };
    if (inputs.date < today) return { ok: false, message: PREDICTION_MESSAGES.past };
    return { ok: true, message: { ...base, date: start } };
  }
  return { ok: true, message: { ...base, start_date: start, end_date: end } };
}
