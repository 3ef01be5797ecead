// Daily market prices behind one interface: the demo's history stream and its stock models read
// symbols through MarketData, whichever source answers. The default is the shipped data
// (samples/market/, real prices from pinned packages, sha256-checked at start); an online provider
// can be switched on with MARKET_DATA_PROVIDER for installations with internet.

import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { DEFAULT_SAMPLES_DIR } from '../../src/engine/node/load-sample-manifest';
import { keepsDay, overlaps, type HistoryFilter } from '../../src/engine/history-filter';

/** The stream's columns, in order (spec: "Date, Open, High, Low, Close, Volume"). */
export const PRICE_HEADER = 'Date,Open,High,Low,Close,Volume';

export interface MarketSymbol {
  symbol: string;
  /** First and last day of real history (YYYY-MM-DD); later days are only ever predictions. */
  first_date: string;
  last_date: string;
  rows: number;
  /** The source carries only closes: Open, High, Low and Volume are empty. */
  close_only: boolean;
  synthetic: boolean;
  source: string;
  licence: string;
}

/** Why a symbol's rows cannot be read: unknown (404) or the provider failed (its status). */
export class MarketDataError extends Error {
  override name = 'MarketDataError';
  constructor(
    readonly symbol: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface MarketData {
  /** Which provider answers ("shipped" or the online one's name). */
  readonly provider: string;
  symbols(): MarketSymbol[];
  find(symbol: string): MarketSymbol | undefined;
  /**
   * The symbol's CSV as it is read: the header, then each row the filter keeps, by date. Lines are
   * produced while the source is read, never after reading it whole. Throws MarketDataError before
   * the first line when the symbol is unknown or the provider refuses.
   */
  lines(symbol: string, filter: HistoryFilter, signal?: AbortSignal): Promise<AsyncIterable<string>>;
}

interface ShippedEntry extends MarketSymbol {
  file: string;
  sha256: string;
}

/** The shipped files: samples/market/{SYMBOL}.csv as listed in the manifest's market_data. */
export class ShippedMarketData implements MarketData {
  readonly provider = 'shipped';
  private readonly bySymbol: Map<string, ShippedEntry>;

  constructor(
    private readonly dir: string,
    entries: ShippedEntry[],
  ) {
    this.bySymbol = new Map(entries.map((e) => [e.symbol, e]));
  }

  /** Reads the manifest's market_data in `dir` and checks every file's sha256 (a mismatch stops the start). */
  static loadSync(dir: string = DEFAULT_SAMPLES_DIR): ShippedMarketData {
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
      market_data?: ShippedEntry[];
    };
    const entries = manifest.market_data ?? [];
    for (const entry of entries) {
      const digest = createHash('sha256')
        .update(readFileSync(path.join(dir, entry.file)))
        .digest('hex');
      if (digest !== entry.sha256) {
        throw new Error(
          `samples/${entry.file}: sha256 ${digest} does not match the manifest's ${entry.sha256}`,
        );
      }
    }
    return new ShippedMarketData(dir, entries);
  }

  symbols(): MarketSymbol[] {
    return [...this.bySymbol.values()].map(publicFacts);
  }

  find(symbol: string): MarketSymbol | undefined {
    const entry = this.bySymbol.get(symbol);
    return entry && publicFacts(entry);
  }

  /** The file's absolute path (the models' training data). */
  pathOf(symbol: string): string | undefined {
    const entry = this.bySymbol.get(symbol);
    return entry && path.join(this.dir, entry.file);
  }

  async lines(symbol: string, filter: HistoryFilter, signal?: AbortSignal): Promise<AsyncIterable<string>> {
    const entry = this.bySymbol.get(symbol);
    if (!entry) throw unknownSymbol(symbol);
    const input = createReadStream(path.join(this.dir, entry.file), { encoding: 'utf8', signal });
    return filteredLines(createInterface({ input, crlfDelay: Infinity }), filter);
  }
}

/**
 * An online provider answering the stream's layout (Stooq's daily CSV: Date,Open,High,Low,Close,Volume)
 * at `{base}/q/d/l/?s={symbol}.us&i=d`. It knows no real-history bounds ahead of a request, so the
 * symbol list is the shipped one's names with the provider's name as source.
 */
export class OnlineMarketData implements MarketData {
  readonly provider = 'stooq';

  constructor(
    private readonly base: string,
    private readonly known: MarketData,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  symbols(): MarketSymbol[] {
    return this.known.symbols().map((s) => this.describe(s));
  }

  find(symbol: string): MarketSymbol | undefined {
    const shipped = this.known.find(symbol);
    return shipped && this.describe(shipped);
  }

  private describe(s: MarketSymbol): MarketSymbol {
    const today = new Date().toISOString().slice(0, 10);
    return {
      ...s,
      last_date: today,
      close_only: false,
      source: `Stooq daily prices (${this.base})`,
      licence: 'Stooq terms of use',
    };
  }

  async lines(symbol: string, filter: HistoryFilter, signal?: AbortSignal): Promise<AsyncIterable<string>> {
    if (!this.known.find(symbol)) throw unknownSymbol(symbol);
    const url = new URL('/q/d/l/', this.base);
    url.searchParams.set('s', `${symbol.toLowerCase()}.us`);
    url.searchParams.set('i', 'd');
    const response = await this.fetchImpl(url, { signal: signal ?? AbortSignal.timeout(15_000) }).catch(
      () => null,
    );
    if (!response || !response.ok || !response.body) {
      const status = response?.status ?? 502;
      throw new MarketDataError(symbol, status, `Failed to fetch dataset for ${symbol}: ${status}`);
    }
    const input = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    input.setEncoding('utf8');
    return filteredLines(createInterface({ input, crlfDelay: Infinity }), filter);
  }
}

const publicFacts = ({ file: _file, sha256: _sha, ...facts }: ShippedEntry): MarketSymbol => facts;

const unknownSymbol = (symbol: string) =>
  new MarketDataError(symbol, 404, `Failed to fetch dataset for ${symbol}: 404`);

/**
 * The header, then the rows the filter keeps. Rows are sorted by date, so reading stops after the
 * filter's last day; the source is closed when the consumer stops early.
 */
async function* filteredLines(
  rows: AsyncIterable<string> & { close(): void },
  filter: HistoryFilter,
): AsyncGenerator<string> {
  try {
    let first = true;
    for await (const line of rows) {
      if (first) {
        first = false;
        yield PRICE_HEADER;
        continue;
      }
      if (line === '') continue;
      const day = line.slice(0, 10);
      if (filter.to !== null && day > filter.to) break;
      if (keepsDay(filter, day)) yield line;
    }
  } finally {
    rows.close();
  }
}

/** Whether the symbol's real history can hold rows for the filter (shipped bounds known ahead). */
export const historyCovers = (symbol: MarketSymbol, filter: HistoryFilter) =>
  overlaps(filter, symbol.first_date, symbol.last_date);

/** The deployment's market data: the shipped files, or the online provider when MARKET_DATA_PROVIDER says so. */
export function createMarketData(
  config: { marketDataProvider: 'shipped' | 'stooq'; marketDataUrl: string },
  shipped: ShippedMarketData = ShippedMarketData.loadSync(),
): MarketData {
  return config.marketDataProvider === 'stooq'
    ? new OnlineMarketData(config.marketDataUrl, shipped)
    : shipped;
}
