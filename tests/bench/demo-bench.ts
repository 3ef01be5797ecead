/**
 * Benchmark: the landing demo. (1) Warm prediction latency over the WebSocket
 * /api/stock-price-prediction/ws/predict: the symbol's classical and quantum models trained through the
 * job queue first (the demo's own settings), the first request per model (which computes the model's
 * step-by-step path past the last real day) reported apart, then week requests answered from the
 * stored model: median and p95 of the round trip. Target: median under 300 ms. (2) The history
 * stream's time to first byte and to its end over real HTTP, for the whole file of the longest history.
 * Run: npm run bench:demo [symbol] [calls]   (default TSLA, 100)
 */
import http from 'node:http';
import { pino } from 'pino';
import { addDays } from '../../src/engine/stock-demo';
import { buildApp } from '../../server/app';
import { ShippedMarketData } from '../../server/market-data/market-data';
import { DemoModels, DEFAULT_TRAINING } from '../../server/stock-demo/demo-models';
import { PredictionService, type PredictionAnswer } from '../../server/stock-demo/prediction-service';
import { startStack } from '../../server/test-support/harness';

const symbol = process.argv[2] ?? 'TSLA';
const calls = Number(process.argv[3] ?? 100);

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;

const stack = await startStack({ database: 'pglite', queue: 'in-process' }, { WORKER_WARM: 'true' });
const s = stack.services;
const market = ShippedMarketData.loadSync();
const predictions = new PredictionService({
  models: new DemoModels(
    {
      db: s.db,
      registry: s.registry,
      jobs: s.jobs,
      jobsRepository: s.repositories.jobs,
      users: s.repositories.users,
      market,
      outputsDir: `${stack.config.dataDir}/outputs`,
    },
    DEFAULT_TRAINING,
  ),
  market,
  launcher: s.launcher,
  log: pino({ level: 'silent' }),
});
const app = await buildApp({ ...s, demoPredictions: predictions }, { serveWebApp: false });
try {
  await app.ready();
  const pending = new Map<number, (a: PredictionAnswer) => void>();
  const connect = async () => {
    const ws = await app.injectWS('/api/stock-price-prediction/ws/predict');
    ws.on('message', (data: Buffer) => {
      const answer = JSON.parse(data.toString()) as PredictionAnswer & { id: number };
      pending.get(answer.id)?.(answer);
      pending.delete(answer.id);
    });
    return ws;
  };
  // A connection may send 30 messages a minute: the benchmark opens a new one every 25.
  let socket = await connect();
  let sent = 0;
  let next = 0;
  const ask = async (message: object) => {
    if (++sent % 25 === 0) {
      socket.terminate();
      socket = await connect();
    }
    return new Promise<PredictionAnswer>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, ...message }));
    });
  };
  const today = new Date().toISOString().slice(0, 10);
  const week = (model: string) => ({
    symbol,
    model,
    period: 'week',
    start_date: today,
    end_date: addDays(today, 6),
  });

  for (const model of ['classical', 'quantum']) {
    const started = Date.now();
    let answer = await ask(week(model));
    while (answer.error?.includes('being prepared')) {
      await new Promise((r) => setTimeout(r, 3000));
      answer = await ask(week(model));
    }
    if (answer.error) throw new Error(answer.error);
    console.log(
      `${symbol} ${model}: trained and first path in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  for (const model of ['classical', 'quantum']) {
    const month = { symbol, model, period: 'month', start_date: today, end_date: addDays(today, 29) };
    const t0 = performance.now();
    await ask(month); // may extend the path by one horizon step
    const first = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      const answer = await ask(i % 2 ? month : week(model));
      times.push(performance.now() - t);
      if (answer.error) throw new Error(answer.error);
    }
    console.log(
      `warm ${model} prediction (${calls} calls): median ${ms(quantile(times, 0.5))}, p95 ${ms(quantile(times, 0.95))}; first month request ${ms(first)}`,
    );
  }
  socket.terminate();

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const longest = market.symbols().reduce((a, b) => (b.rows > a.rows ? b : a));
  const ttfb: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < 30; i++) {
    await new Promise<void>((resolve, reject) => {
      const t = performance.now();
      http
        .get(`${address}/api/stock-price-prediction/stream-dataset/${longest.symbol}`, (res) => {
          let firstByte = false;
          res.on('data', () => {
            if (!firstByte) ttfb.push(performance.now() - t);
            firstByte = true;
          });
          res.on('end', () => {
            total.push(performance.now() - t);
            resolve();
          });
        })
        .on('error', reject);
    });
  }
  console.log(
    `stream ${longest.symbol} (${longest.rows} rows): time to first byte median ${ms(quantile(ttfb, 0.5))}, p95 ${ms(quantile(ttfb, 0.95))}; whole file median ${ms(quantile(total, 0.5))}`,
  );
} finally {
  await app.close();
  await predictions.close();
  await stack.close();
}
