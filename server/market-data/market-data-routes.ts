import { Readable } from 'node:stream';
import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import { envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { FILTER_MESSAGES, parseHistoryFilter } from '../../src/engine/history-filter';
import { historyCovers, MarketDataError, type MarketData } from './market-data';

const symbolSchema = {
  type: 'object',
  required: ['symbol', 'first_date', 'last_date', 'rows', 'close_only', 'synthetic', 'source', 'licence'],
  properties: {
    symbol: { type: 'string' },
    first_date: { type: 'string', description: 'First day of real history (YYYY-MM-DD)' },
    last_date: {
      type: 'string',
      description: 'Last day of real history (YYYY-MM-DD); every later day the demo shows is a prediction',
    },
    rows: { type: 'integer', description: 'Trading days of real history' },
    close_only: {
      type: 'boolean',
      description: 'Only closes are known: Open, High, Low and Volume are empty',
    },
    synthetic: { type: 'boolean' },
    source: { type: 'string' },
    licence: { type: 'string' },
  },
} as const;

const text = { type: 'string', maxLength: 20 } as const;

/**
 * The landing demo's market data: the symbols with their real-history bounds, and
 * GET /stock-price-prediction/stream-dataset/{symbol} (spec section 7), a CSV streamed as it is read:
 * header, then Date, Open, High, Low, Close, Volume for the days an optional year, month, or
 * start_date and end_date keep. Public.
 */
export const marketDataRoutes: FastifyPluginAsyncJsonSchemaToTs<{ Options: { market: MarketData } }> = async (
  app,
  { market },
) => {
  const tags = ['stock-demo'];
  app.get(
    '/stock-price-prediction/symbols',
    {
      schema: {
        tags,
        summary: "The demo's symbols, each with the dates its real history covers and its source",
        security: PUBLIC,
        response: {
          200: envelope({
            type: 'object',
            required: ['provider', 'symbols'],
            properties: { provider: { type: 'string' }, symbols: { type: 'array', items: symbolSchema } },
          }),
        },
      },
    },
    async () => ({ success: true, data: { provider: market.provider, symbols: market.symbols() } }),
  );

  app.get(
    '/stock-price-prediction/stream-dataset/:symbol',
    {
      schema: {
        tags,
        summary:
          "A symbol's daily prices as a CSV streamed while it is read (optional year, month or date range)",
        security: PUBLIC,
        params: {
          type: 'object',
          required: ['symbol'],
          properties: { symbol: { type: 'string', pattern: '^[A-Za-z.-]{1,12}$' } },
        },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            year: { ...text, description: 'A year, e.g. 2022' },
            month: { ...text, description: `YYYY-MM; otherwise '${FILTER_MESSAGES.month}'` },
            start_date: { ...text, description: 'YYYY-MM-DD, with end_date' },
            end_date: { ...text, description: 'YYYY-MM-DD, with start_date' },
          },
        },
        response: {
          200: {
            description: 'Header Date,Open,High,Low,Close,Volume, then one line per trading day by date',
            content: { 'text/csv': { schema: { type: 'string' } } },
          },
          ...errorReplies(400, 404, 502),
        },
      },
    },
    async (request, reply) => {
      const symbol = request.params.symbol.toUpperCase();
      const parsed = parseHistoryFilter(request.query);
      if (!parsed.ok) {
        return reply.code(400).send(errorBody(parsed.errors[0]!.message, parsed.errors));
      }
      const known = market.find(symbol);
      if (!known) return reply.code(404).send(errorBody(`Failed to fetch dataset for ${symbol}: 404`));
      if (!historyCovers(known, parsed.filter))
        return reply.code(404).send(errorBody(FILTER_MESSAGES.noData));
      const abort = new AbortController();
      request.raw.once('close', () => abort.abort());
      let lines: AsyncIterable<string>;
      try {
        lines = await market.lines(symbol, parsed.filter, abort.signal);
      } catch (error) {
        if (!(error instanceof MarketDataError)) throw error;
        return reply.code(error.status === 404 ? 404 : 502).send(errorBody(error.message));
      }
      async function* withNewlines() {
        for await (const line of lines) yield `${line}\n`;
      }
      return (
        reply
          .code(200)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('cache-control', 'no-cache')
          // Fastify streams a Readable as it is; the type provider reads the reply schema as a string.
          .send(Readable.from(withNewlines()) as unknown as string)
      );
    },
  );
};
