// The demo's history: GET /api/stock-price-prediction/stream-dataset/{symbol}, read as it streams.

import type { HistoryFilter } from '../../../../engine/history-filter';

export interface HistoryRow {
  date: string;
  close: number;
}

export interface SymbolFacts {
  symbol: string;
  first_date: string;
  last_date: string;
  rows: number;
  close_only: boolean;
  synthetic: boolean;
  source: string;
  licence: string;
}

export const HISTORY_TEXTS = {
  failed: (symbol: string, status: number) => `Failed to fetch dataset for ${symbol}: ${status}`,
  error: (detail: string) => `Error fetching historical data: ${detail}`,
  noData: 'No data found for the specified filters.',
} as const;

export async function fetchSymbols(signal?: AbortSignal): Promise<SymbolFacts[]> {
  const response = await fetch('/api/stock-price-prediction/symbols', { signal });
  if (!response.ok) throw new Error(`HTTP error! Status: ${response.status}`);
  return ((await response.json()) as { data: { symbols: SymbolFacts[] } }).data.symbols;
}

function queryOf(filter: HistoryFilter): string {
  if (filter.mode === 'year') return `?year=${filter.from!.slice(0, 4)}`;
  if (filter.mode === 'month') return `?month=${filter.from!.slice(0, 7)}`;
  if (filter.mode === 'range') return `?start_date=${filter.from}&end_date=${filter.to}`;
  return '';
}

/** The symbol's closes the filter keeps, parsed line by line as the response streams in. */
export async function fetchHistory(
  symbol: string,
  filter: HistoryFilter,
  signal: AbortSignal,
): Promise<{ ok: true; rows: HistoryRow[] } | { ok: false; message: string }> {
  let response: Response;
  try {
    response = await fetch(
      `/api/stock-price-prediction/stream-dataset/${encodeURIComponent(symbol)}${queryOf(filter)}`,
      {
        signal,
      },
    );
  } catch (error) {
    if (signal.aborted) throw error;
    return {
      ok: false,
      message: HISTORY_TEXTS.error(error instanceof Error ? error.message : String(error)),
    };
  }
  if (!response.ok || !response.body) {
    const detail = await response
      .json()
      .then((b: { detail?: string }) => b.detail)
      .catch(() => undefined);
    if (detail === HISTORY_TEXTS.noData) return { ok: false, message: HISTORY_TEXTS.noData };
    return { ok: false, message: HISTORY_TEXTS.failed(symbol, response.status) };
  }
  const rows: HistoryRow[] = [];
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  let header = true;
  const take = (line: string) => {
    if (header) {
      header = false;
      return;
    }
    const cells = line.split(',');
    const close = Number(cells[4]);
    if (cells[0] && cells[4] !== '' && Number.isFinite(close)) rows.push({ date: cells[0], close });
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const lines = (rest + value).split('\n');
    rest = lines.pop() ?? '';
    lines.filter(Boolean).forEach(take);
  }
  if (rest) take(rest);
  return rows.length === 0 ? { ok: false, message: HISTORY_TEXTS.noData } : { ok: true, rows };
}
