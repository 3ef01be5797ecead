/**
 * Benchmark: the admin analytics page's queries at 1,000,000 page views (and 300,000 time-on-page
 * rows) spread over 90 days, 50,000 clients and 40 pages, on the local PostgreSQL (DATABASE_URL's
 * scale-out; a fresh database that is dropped afterwards) and, with --pglite, on the embedded PGlite.
 * Prints each query's median over 5 runs for the last 7, 30 and 90 days, and the whole page's call.
 * Run: npm run bench:tracking [--pglite]
 */
import { TrackingRepository } from '../../server/tracking/tracking-repository';
import { TrackingService } from '../../server/tracking/tracking-service';
import { addDays } from '../../src/engine/stock-demo';
import { startStack } from '../../server/test-support/harness';
import { pino } from 'pino';

const VIEWS = 1_000_000;
const TIMES = 300_000;
const database = process.argv.includes('--pglite') ? 'pglite' : 'postgres';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`.padStart(10);

const stack = await startStack({ database, queue: 'in-process' });
try {
  const db = stack.services.db;
  let t = performance.now();
  await db.query(
    `insert into page_views (service, page, client_id, session_key, ip_prefix, browser, created_at, day)
     select 'qml-studio', '/page-' || (i % 40), 'client-' || (i % 50000),
            'session-' || (i % 50000) || '-' || (i % 7), '203.0.113.0/24', 'Chromium', ts, (ts at time zone 'utc')::date
     from (select i, now() - (i % 90) * interval '1 day' - (i % 3600) * interval '1 second' as ts
           from generate_series(1, $1::int) i) g`,
    [VIEWS],
  );
  await db.query(
    `insert into page_times (view_id, service, page, seconds, created_at, updated_at, day)
     select 'view-' || i, 'qml-studio', '/page-' || (i % 40), (i % 600) + 0.5, ts, ts, (ts at time zone 'utc')::date
     from (select i, now() - (i % 90) * interval '1 day' as ts from generate_series(1, $1::int) i) g`,
    [TIMES],
  );
  await db.query('analyze page_views');
  await db.query('analyze page_times');
  console.log(
    `${database}: generated ${VIEWS.toLocaleString('en-US')} views and ${TIMES.toLocaleString('en-US')} time rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const repository = new TrackingRepository(db);
  const service = new TrackingService(repository, stack.services.rateLimiter, {
    retentionDays: 180,
    log: pino({ level: 'silent' }),
  });
  const today = new Date().toISOString().slice(0, 10);
  for (const days of [7, 30, 90]) {
    const range = { from: addDays(today, -(days - 1)), to: today };
    const timed = async (fn: () => Promise<unknown>) => {
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) {
        t = performance.now();
        await fn();
        runs.push(performance.now() - t);
      }
      return median(runs);
    };
    const perDay = await timed(() => repository.viewsPerDay(range));
    const totals = await timed(() => repository.totals(range));
    const top = await timed(() => repository.topPages(range, 10));
    const time = await timed(() => repository.timeOnPage(range, 10));
    const page = await timed(() => service.analytics(range));
    console.log(
      `last ${String(days).padStart(2)} days: per day ${ms(perDay)} | totals ${ms(totals)} | top pages ${ms(top)} | time on page ${ms(time)} | whole page ${ms(page)}`,
    );
  }
} finally {
  await stack.close();
}
