import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween, isTradingDay } from '../../src/engine/stock-demo';
import { buildApp } from '../app';
import { ShippedMarketData } from '../market-data/market-data';
import { startStack, type TestStack } from '../test-support/harness';
import { DemoModels, type TrainingSettings } from './demo-models';
import { PredictionService, type PredictionAnswer } from './prediction-service';

// WebSocket /api/stock-price-prediction/ws/predict through the real app, the real queue and the real
// Python worker: the spec's answer shape {predictions, period, error}, the refusals, and the model
// life cycle: the first request queues the symbol's training job and says the model is being
// prepared; once that job is Completed, predictions come from the stored model, step by step, and
// no further request trains anything.

const SMALL: TrainingSettings = {
  rows: 80,
  classical: { method: 'LSTM', epochs: 5, learningRate: 0.01, hiddenLayers: 8 },
  quantum: { epochs: 5, learningRate: 0.01, hiddenLayers: 4, qubits: 4 },
};
const today = new Date().toISOString().slice(0, 10);
const nextWeekday = daysBetween(today, addDays(today, 6)).find(isTradingDay)!;

describe('demo prediction socket', () => {
  let stack: TestStack;
  let app: FastifyInstance;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    const market = ShippedMarketData.loadSync();
    const services = stack.services;
    const predictions = new PredictionService({
      models: new DemoModels(
        {
          db: services.db,
          registry: services.registry,
          jobs: services.jobs,
          jobsRepository: services.repositories.jobs,
          users: services.repositories.users,
          market,
          outputsDir: `${stack.config.dataDir}/outputs`,
        },
        SMALL,
      ),
      market,
      launcher: services.launcher,
      log: pino({ level: 'silent' }),
    });
    app = await buildApp({ ...services, demoPredictions: predictions }, { serveWebApp: false });
    await app.ready(); // injectWS waits for a ready app
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await stack?.close();
  });

  /**
   * Sends each message on one connection and collects one answer per message, in the order sent
   * (answers arrive as each is ready, so object messages carry their index as `id`).
   */
  async function ask(
    ...messages: (object | string)[]
  ): Promise<(PredictionAnswer & Record<string, unknown>)[]> {
    const socket = await app.injectWS('/api/stock-price-prediction/ws/predict');
    const answers: (PredictionAnswer & Record<string, unknown>)[] = [];
    const done = new Promise<void>((resolve) => {
      socket.on('message', (data: Buffer) => {
        answers.push(JSON.parse(data.toString()) as PredictionAnswer & Record<string, unknown>);
        if (answers.length === messages.length) resolve();
      });
    });
    messages.forEach((m, i) => socket.send(typeof m === 'string' ? m : JSON.stringify({ id: i, ...m })));
    await done;
    socket.terminate();
    const byId = (a: Record<string, unknown>) => (typeof a.id === 'number' ? a.id : -1);
    return answers.sort((a, b) => byId(a) - byId(b));
  }

  const demoJobs = async () =>
    (
      await stack.services.db.query<{ id: number; status: string; kind: string }>(
        `select j.id, j.status, j.kind from jobs j join users u on u.id = j.owner_id
         where u.email = 'landing-demo@qmlstudio.invalid' order by j.id`,
      )
    ).rows;

  async function waitForModels(count: number) {
    const deadline = Date.now() + 400_000;
    for (;;) {
      const jobs = await demoJobs();
      if (jobs.length >= count && jobs.every((j) => j.status === 'Completed')) return jobs;
      const failed = jobs.find((j) => j.status === 'Failed');
      if (failed) {
        const events = await stack.services.jobs.events(failed.id);
        throw new Error(`demo training failed: ${JSON.stringify(events.slice(-3))}`);
      }
      if (Date.now() > deadline) throw new Error(`models not ready: ${JSON.stringify(jobs)}`);
      await new Promise((r) => setTimeout(r, 200)); // a database read: polling often costs nothing
    }
  }

  it('refuses bad requests with a message and no predictions', async () => {
    const answers = await ask(
      'not json',
      { symbol: 'XYZ', model: 'classical', period: 'day', date: nextWeekday },
      { symbol: 'AAPL', model: 'deep', period: 'day', date: nextWeekday },
      { symbol: 'AAPL', model: 'classical', period: 'year', date: nextWeekday },
      { symbol: 'AAPL', model: 'classical', period: 'day' },
      { symbol: 'AAPL', model: 'classical', period: 'day', date: '2020-01-02' },
      { symbol: 'AAPL', model: 'classical', period: 'week', start_date: nextWeekday },
      { symbol: 'AAPL', model: 'classical', period: 'week', start_date: addDays(today, 6), end_date: today },
      { symbol: 'AAPL', model: 'classical', period: 'week', start_date: today, end_date: addDays(today, 9) },
    );
    for (const answer of answers) {
      expect(answer.predictions).toEqual([]);
      expect(typeof answer.error).toBe('string');
    }
    expect(answers.map((a) => a.error)).toEqual([
      'Send a JSON object: symbol, model, period, and date or start_date and end_date.',
      'Choose a symbol: AAPL, GOOG, MSFT, AMZN, TSLA, META, NVDA, JPM, WMT, PG.',
      'Choose a model: classical or quantum.',
      'Choose a period: day, week or month.',
      'Please provide a prediction date (YYYY-MM-DD).',
      'The prediction date must be today or later.',
      'Please provide both start and end dates.',
      'Start date must be before end date.',
      'A week is the start date plus 6 days.',
    ]);
    expect(answers[1]!.field).toBe('/symbol');
  });

  it('queues one training per model, says it is being prepared, then predicts from the stored model', async () => {
    const first = await ask(
      { symbol: 'TSLA', model: 'classical', period: 'day', date: nextWeekday },
      { symbol: 'tsla', model: 'quantum', period: 'day', date: nextWeekday },
      { symbol: 'TSLA', model: 'classical', period: 'day', date: nextWeekday },
    );
    for (const answer of first) {
      expect(answer.predictions).toEqual([]);
      expect(answer.period).toBe('day');
      expect(answer.error).toMatch(/^The (classical|quantum) model for TSLA is being prepared/);
      expect(answer.preparing).toBe(true);
    }
    expect(first.map((a) => a.id)).toEqual([0, 1, 2]);
    const jobs = await waitForModels(2);
    expect(jobs.map((j) => j.kind)).toEqual(['stock-price-prediction', 'stock-price-prediction']);

    const weekEnd = addDays(today, 6);
    const monthEnd = addDays(today, 29);
    const [day, week, month, quantumWeek, again] = await ask(
      { symbol: 'TSLA', model: 'classical', period: 'day', date: nextWeekday },
      { symbol: 'TSLA', model: 'classical', period: 'week', start_date: today, end_date: weekEnd },
      { symbol: 'TSLA', model: 'classical', period: 'month', start_date: today, end_date: monthEnd },
      { symbol: 'TSLA', model: 'quantum', period: 'week', start_date: today, end_date: weekEnd },
      { symbol: 'TSLA', model: 'classical', period: 'week', start_date: today, end_date: weekEnd },
    );
    expect(day).toMatchObject({ period: 'day', error: null, history_until: '2022-03-23' });
    expect(day!.predictions).toHaveLength(1);
    expect(day!.predictions[0]!.date).toBe(nextWeekday);
    expect(day!.predictions[0]!.predicted_price).toBeGreaterThan(0);
    const weekDays = daysBetween(today, weekEnd).filter(isTradingDay);
    expect(week!.predictions.map((p) => p.date)).toEqual(weekDays);
    expect(month!.predictions.map((p) => p.date)).toEqual(daysBetween(today, monthEnd).filter(isTradingDay));
    expect(month!.period).toBe('month');
    // One path per model: the month's first days are the week's; a repeated request gives the same.
    expect(month!.predictions.slice(0, weekDays.length)).toEqual(week!.predictions);
    expect(again!.predictions).toEqual(week!.predictions);
    expect(quantumWeek!.error).toBeNull();
    expect(quantumWeek!.predictions.map((p) => p.date)).toEqual(weekDays);
    expect(quantumWeek!.predictions.every((p) => p.predicted_price > 0)).toBe(true);
    // Predicting never trained anything more.
    expect(await demoJobs()).toHaveLength(2);
  }, 600_000);
});
