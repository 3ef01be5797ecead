import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { startStack, type TestStack } from '../test-support/harness';
import { DEFAULT_SAMPLES_DIR } from '../../src/engine/node/load-sample-manifest';
import { PRICE_HEADER, ShippedMarketData } from './market-data';

// GET /api/stock-price-prediction/stream-dataset/{symbol} and /symbols through the real app on the
// shipped market data: the CSV's shape per filter, the spec's messages for refused filters, and a
// stream whose first line leaves before its source has been read to the end.

const manifest = JSON.parse(readFileSync(path.join(DEFAULT_SAMPLES_DIR, 'manifest.json'), 'utf8')) as {
  market_data: { symbol: string; file: string; rows: number; last_date: string }[];
};
const shippedLines = (symbol: string) =>
  readFileSync(path.join(DEFAULT_SAMPLES_DIR, 'market', `${symbol}.csv`), 'utf8')
    .trimEnd()
    .split('\n');

// One stack for the file: the timing and provider blocks build their own app on its services.
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ database: 'pglite', queue: 'in-process' });
});
afterAll(async () => stack?.close());

describe('market data stream', () => {
  const get = (url: string) => stack.app.inject({ method: 'GET', url });

  it('lists the ten demo symbols with the last day of real history', async () => {
    const reply = await get('/api/stock-price-prediction/symbols');
    expect(reply.statusCode).toBe(200);
    const data = (
      reply.json() as { data: { provider: string; symbols: { symbol: string; last_date: string }[] } }
    ).data;
    expect(data.provider).toBe('shipped');
    expect(data.symbols.map((s) => s.symbol)).toEqual([
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
    ]);
    expect(data.symbols.find((s) => s.symbol === 'NVDA')!.last_date).toBe('2025-02-14');
  });

  it('streams the whole history as the shipped CSV: header, then one line per day', async () => {
    const reply = await get('/api/stock-price-prediction/stream-dataset/AAPL');
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = reply.body.trimEnd().split('\n');
    expect(lines[0]).toBe(PRICE_HEADER);
    expect(lines).toEqual(shippedLines('AAPL'));
    expect(lines.length - 1).toBe(manifest.market_data.find((m) => m.symbol === 'AAPL')!.rows);
  });

  it('keeps only the year, the month or the date range asked for (lowercase symbols too)', async () => {
    const body = async (query: string) => {
      const reply = await get(`/api/stock-price-prediction/stream-dataset/msft?${query}`);
      expect(reply.statusCode).toBe(200);
      return reply.body.trimEnd().split('\n');
    };
    const year = await body('year=2019');
    expect(year[0]).toBe(PRICE_HEADER);
    expect(year.slice(1).every((l) => l.startsWith('2019-'))).toBe(true);
    expect(year.length - 1).toBe(shippedLines('MSFT').filter((l) => l.startsWith('2019-')).length);
    const month = await body('month=2020-02');
    expect(month.slice(1).map((l) => l.slice(0, 10))[0]).toBe('2020-02-03');
    expect(month.slice(1).every((l) => l.startsWith('2020-02-'))).toBe(true);
    const range = await body('start_date=2020-03-02&end_date=2020-03-06');
    expect(range.slice(1).map((l) => l.slice(0, 10))).toEqual([
      '2020-03-02',
      '2020-03-03',
      '2020-03-04',
      '2020-03-05',
      '2020-03-06',
    ]);
    // A weekend inside the real history: the header alone (the client says there is no data).
    expect(await body('start_date=2020-03-07&end_date=2020-03-08')).toEqual([PRICE_HEADER]);
  });

  it("refuses bad filters with the spec's messages, naming the field", async () => {
    const refusal = async (query: string) => {
      const reply = await get(`/api/stock-price-prediction/stream-dataset/AAPL?${query}`);
      expect(reply.statusCode).toBe(400);
      const json = reply.json() as { detail: string; errors: { field: string; message: string }[] };
      return [json.detail, json.errors[0]!.field];
    };
    expect(await refusal('month=2023-5')).toEqual([
      'Invalid month format. Use YYYY-MM (e.g., 2023-05)',
      '/month',
    ]);
    expect(await refusal('month=2023-13')).toEqual([
      'Invalid month format. Use YYYY-MM (e.g., 2023-05)',
      '/month',
    ]);
    expect(await refusal('start_date=2020-01-01')).toEqual([
      'Please provide both start and end dates.',
      '/end_date',
    ]);
    expect(await refusal('end_date=2020-01-01')).toEqual([
      'Please provide both start and end dates.',
      '/start_date',
    ]);
    expect(await refusal('start_date=2020-02-01&end_date=2020-01-01')).toEqual([
      'Start date must be before end date.',
      '/start_date',
    ]);
    expect(await refusal('start_date=2020-02-30&end_date=2020-03-01')).toEqual([
      'Dates use YYYY-MM-DD (e.g., 2023-05-01).',
      '/start_date',
    ]);
    expect((await refusal('year=20x1'))[1]).toBe('/year');
    expect((await refusal('year=2020&month=2020-01'))[1]).toBe('/year');
    const unknownKey = await get('/api/stock-price-prediction/stream-dataset/AAPL?ticker=1');
    expect(unknownKey.statusCode).toBe(400);
  });

  it('answers 404 with the spec texts for an unknown symbol and for filters outside the history', async () => {
    const unknown = await get('/api/stock-price-prediction/stream-dataset/ZZZZ');
    expect(unknown.statusCode).toBe(404);
    expect((unknown.json() as { detail: string }).detail).toBe('Failed to fetch dataset for ZZZZ: 404');
    const outside = await get('/api/stock-price-prediction/stream-dataset/TSLA?year=2019');
    expect(outside.statusCode).toBe(404);
    expect((outside.json() as { detail: string }).detail).toBe('No data found for the specified filters.');
  });
});

describe('market data stream timing', () => {
  let app: FastifyInstance;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'qml-market-'));
    // A named pipe as the symbol's file: its end exists only once this test writes it.
    execFileSync('mkfifo', [path.join(dir, 'SLOW.csv')]);
    const entry = {
      symbol: 'SLOW',
      file: 'SLOW.csv',
      first_date: '2020-01-01',
      last_date: '2020-12-31',
      rows: 3,
      close_only: false,
      synthetic: false,
      source: 'test',
      licence: 'test',
      sha256: '',
    };
    app = await buildApp(
      { ...stack.services, market: new ShippedMarketData(dir, [entry]) },
      { serveWebApp: false },
    );
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the first line before the file has been read to its end', async () => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const writer = createWriteStream(path.join(dir, 'SLOW.csv'));
    writer.write(`${PRICE_HEADER}\n2020-01-02,1,2,0.5,1.5,100\n`);
    const received: string[] = [];
    let ended = false;
    const done = new Promise<void>((resolve, reject) => {
      http
        .get(`${address}/api/stock-price-prediction/stream-dataset/SLOW`, (res) => {
          expect(res.statusCode).toBe(200);
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => received.push(chunk));
          res.on('end', () => {
            ended = true;
            resolve();
          });
        })
        .on('error', reject);
    });
    // The header and the first row arrive while the rest of the file does not exist yet.
    const deadline = Date.now() + 10_000;
    while (!received.join('').includes('2020-01-02') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(received.join('')).toBe(`${PRICE_HEADER}\n2020-01-02,1,2,0.5,1.5,100\n`);
    expect(ended).toBe(false);
    writer.end('2020-01-03,1,2,0.5,1.6,100\n2020-01-06,1,2,0.5,1.7,100\n');
    await done;
    expect(received.join('').trimEnd().split('\n')).toHaveLength(4);
    expect((app.server.address() as AddressInfo).port).toBeGreaterThan(0);
  });
});

describe('online market data provider (MARKET_DATA_PROVIDER=stooq)', () => {
  let app: FastifyInstance;
  let provider: http.Server;
  let status = 200;
  const asked: string[] = [];

  beforeAll(async () => {
    // A stand-in for the provider on this machine: Stooq's daily CSV layout.
    provider = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      if (status !== 200) {
        res.writeHead(status).end('unavailable');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(
        'Date,Open,High,Low,Close,Volume\n2024-01-02,10,11,9,10.5,100\n2024-01-03,10.5,12,10,11.5,120\n2025-01-02,20,21,19,20.5,200\n',
      );
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const { createMarketData } = await import('./market-data');
    const market = createMarketData({ marketDataProvider: 'stooq', marketDataUrl: base });
    app = await buildApp({ ...stack.services, market }, { serveWebApp: false });
  });
  afterAll(async () => {
    await app?.close();
    provider?.close();
  });

  it("streams the provider's rows through the same filter, and names the provider's failure", async () => {
    const reply = await app.inject({
      method: 'GET',
      url: '/api/stock-price-prediction/stream-dataset/AAPL?year=2024',
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.body.trimEnd().split('\n')).toEqual([
      PRICE_HEADER,
      '2024-01-02,10,11,9,10.5,100',
      '2024-01-03,10.5,12,10,11.5,120',
    ]);
    expect(asked.at(-1)).toBe('/q/d/l/?s=aapl.us&i=d');
    const symbols = await app.inject({ method: 'GET', url: '/api/stock-price-prediction/symbols' });
    expect((symbols.json() as { data: { provider: string } }).data.provider).toBe('stooq');
    status = 503;
    const failed = await app.inject({
      method: 'GET',
      url: '/api/stock-price-prediction/stream-dataset/AAPL',
    });
    expect(failed.statusCode).toBe(502);
    expect((failed.json() as { detail: string }).detail).toBe('Failed to fetch dataset for AAPL: 503');
  });
});
