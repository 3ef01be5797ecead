// The landing page's live stock-prediction demo (spec platform-shell.md: landing demo, section 7's
// WebSocket stock-price-prediction/ws/predict, the demo's limits): its choices, the request a browser
// sends and the days a period covers. Pure, so the browser and the server check a request alike.

export const DEMO_SYMBOLS = [
  'AAPL',
  'GOOG',
  'MSFT',
  'AMZN',
  'TSLA',
  'META',
  'NVDA',
  'JPM',
  'WMT',
  'PG',
] as const;
export const DEMO_MODELS = ['classical', 'quantum'] as const;
/** Days after the first one that each period adds (week: today plus 6 days; month: today plus 29 days). */
export const DEMO_PERIODS = { day: 0, week: 6, month: 29 } as const;

export type DemoSymbol = (typeof DEMO_SYMBOLS)[number];
export type DemoModel = (typeof DEMO_MODELS)[number];
export type DemoPeriod = keyof typeof DEMO_PERIODS;

/** What the browser sends on the socket: a date for one day, start_date and end_date otherwise. */
export interface PredictionRequest {
  symbol: string;
  model: string;
  period: string;
  date?: string;
  start_date?: string;
  end_date?: string;
}

/** A checked request: the first and last day (YYYY-MM-DD) whose prices are asked for. */
export interface CheckedPrediction {
  symbol: DemoSymbol;
  model: DemoModel;
  period: DemoPeriod;
  start: string;
  end: string;
}

export const PREDICTION_MESSAGES = {
  symbol: `Choose a symbol: ${DEMO_SYMBOLS.join(', ')}.`,
  model: 'Choose a model: classical or quantum.',
  period: 'Choose a period: day, week or month.',
  date: 'Please provide a prediction date (YYYY-MM-DD).',
  bothDates: 'Please provide both start and end dates.',
  order: 'Start date must be before end date.',
  past: 'The prediction date must be today or later.',
  span: (period: DemoPeriod) =>
    period === 'week' ? 'A week is the start date plus 6 days.' : 'A month is the start date plus 29 days.',
} as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MS_PER_DAY = 86_400_000;

const isDay = (value: unknown): value is string =>
  typeof value === 'string' &&
  DAY.test(value) &&
  new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;

/** `day` plus `n` calendar days (YYYY-MM-DD). */
export const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * MS_PER_DAY).toISOString().slice(0, 10);

/** Calendar days from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Monday to Friday: the days a stock market trades (holidays are not known here). */
export const isTradingDay = (day: string) => {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6;
};

/**
 * The request checked, or the message refusing it and the field it names. `today` is the caller's
 * date (YYYY-MM-DD); a browser a time zone ahead may be a day past the server's, so one day earlier
 * is accepted as today too.
 */
export function checkPredictionRequest(
  raw: unknown,
  today: string,
): { ok: true; request: CheckedPrediction } | { ok: false; field: string; message: string } {
  const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const symbol = typeof body.symbol === 'string' ? body.symbol.toUpperCase() : '';
  if (!(DEMO_SYMBOLS as readonly string[]).includes(symbol)) {
    return { ok: false, field: '/symbol', message: PREDICTION_MESSAGES.symbol };
  }
  const model = typeof body.model === 'string' ? body.model.toLowerCase() : '';
  if (!(DEMO_MODELS as readonly string[]).includes(model)) {
    return { ok: false, field: '/model', message: PREDICTION_MESSAGES.model };
  }
  const period = typeof body.period === 'string' ? body.period : '';
  if (!Object.hasOwn(DEMO_PERIODS, period)) {
    return { ok: false, field: '/period', message: PREDICTION_MESSAGES.period };
  }
  const span = DEMO_PERIODS[period as DemoPeriod];
  const earliest = addDays(today, -1);
  let start: string;
  let end: string;
  if (span === 0) {
    if (!isDay(body.date)) return { ok: false, field: '/date', message: PREDICTION_MESSAGES.date };
    start = end = body.date;
  } else {
    if (!isDay(body.start_date) || !isDay(body.end_date)) {
      const field = isDay(body.start_date) ? '/end_date' : '/start_date';
      return { ok: false, field, message: PREDICTION_MESSAGES.bothDates };
    }
    start = body.start_date;
    end = body.end_date;
    if (start > end) return { ok: false, field: '/start_date', message: PREDICTION_MESSAGES.order };
    if (end !== addDays(start, span)) {
      return { ok: false, field: '/end_date', message: PREDICTION_MESSAGES.span(period as DemoPeriod) };
    }
  }
  if (start < earliest) {
    return { ok: false, field: span === 0 ? '/date' : '/start_date', message: PREDICTION_MESSAGES.past };
  }
  return {
    ok: true,
    request: {
      symbol: symbol as DemoSymbol,
      model: model as DemoModel,
      period: period as DemoPeriod,
      start,
      end,
    },
  };
}
