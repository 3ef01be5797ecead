// Predictions of the landing demo: a checked request (src/engine/stock-demo.ts) answered from the
// symbol's stored model, continued step by step past the last day of real history by the worker's
// `forecast` command. A model's path is deterministic, so it is computed once per model and horizon
// and kept: a later request within that horizon is answered from memory.

import type { FastifyBaseLogger } from 'fastify';
import {
  daysBetween,
  isTradingDay,
  type CheckedPrediction,
  type DemoPeriod,
} from '../../src/engine/stock-demo';
import { callWorker, endWorkerCalls, workerFailureReason } from '../jobs/worker-call';
import type { WorkerLauncher } from '../jobs/worker-launcher';
import type { WorkerHandle } from '../jobs/worker-process';
import type { ShippedMarketData } from '../market-data/market-data';
import type { DemoModels } from './demo-models';

export interface PredictionAnswer {
  predictions: { date: string; predicted_price: number }[];
  period: DemoPeriod | null;
  error: string | null;
  /** The last day of real history the predictions continue from (later days are predicted). */
  history_until?: string;
  /** Set when the error only says the model is still training: a wait, not a failure. */
  preparing?: true;
}

/** Trading days computed ahead of a request's last day, so nearby requests reuse the same path. */
const HORIZON_STEP = 64;
const FORECAST_TIMEOUT_SECONDS = 120;

/** The model's forecasts by trading day, from the day after the last day of real history. */
interface ForecastPath {
  dates: string[];
  prices: Map<string, number>;
}

export class PredictionService {
  private readonly paths = new Map<string, Promise<ForecastPath>>();
  private readonly running = new Set<WorkerHandle>();

  constructor(
    private readonly deps: {
      models: DemoModels;
      market: ShippedMarketData;
      launcher: WorkerLauncher;
      log: FastifyBaseLogger;
    },
  ) {}

  async predict(request: CheckedPrediction): Promise<PredictionAnswer> {
    const failed = (error: string): PredictionAnswer => ({ predictions: [], period: request.period, error });
    const facts = this.deps.market.find(request.symbol);
    const file = this.deps.market.pathOf(request.symbol);
    if (!facts || !file) return failed(`Failed to fetch dataset for ${request.symbol}: 404`);
    const days = daysBetween(request.start, request.end).filter(isTradingDay);
    if (days.length === 0) {
      return failed(`No trading on ${request.start} (a weekend): choose a weekday.`);
    }
    const model = await this.deps.models.ensure(request.symbol, request.model);
    if (model.state === 'preparing') {
      return {
        ...failed(
          `The ${request.model} model for ${request.symbol} is being prepared (it trains once on the real history); try again in a few minutes.`,
        ),
        preparing: true,
      };
    }
    if (model.state === 'failed')
      return failed(`The ${request.model} model for ${request.symbol} could not be trained: ${model.reason}`);
    const needed = tradingDaysAfter(facts.last_date, request.end);
    const key = `${model.jobId}`;
    let path = await this.paths.get(key);
    if (!path || path.dates.length < needed) {
      const steps = Math.ceil(needed / HORIZON_STEP) * HORIZON_STEP;
      const computing = this.forecast(model.modelDir, file, steps);
      this.paths.set(key, computing);
      try {
        path = await computing;
      } catch (error) {
        this.paths.delete(key);
        return failed(error instanceof Error ? error.message : String(error));
      }
    }
    const prices = path.prices;
    return {
      predictions: days.map((date) => ({ date, predicted_price: round(prices.get(date)!) })),
      period: request.period,
      error: null,
      history_until: facts.last_date,
    };
  }

  private async forecast(modelDir: string, file: string, steps: number): Promise<ForecastPath> {
    const call = await callWorker(this.deps.launcher, this.running, {
      command: 'forecast',
      input: { model_dir: modelDir, dataset: { path: file }, steps },
      timeoutSeconds: FORECAST_TIMEOUT_SECONDS,
    });
    const { dates, predicted } = (call.result ?? {}) as { dates?: unknown; predicted?: unknown };
    if (
      call.exit.code === 0 &&
      Array.isArray(predicted) &&
      Array.isArray(dates) &&
      predicted.length === steps
    ) {
      const days = dates as string[];
      return { dates: days, prices: new Map(days.map((day, i) => [day, predicted[i] as number])) };
    }
    this.deps.log.warn({ exit: call.exit, failure: call.failure }, 'demo forecast failed');
    throw new Error(
      call.timedOut
        ? `The prediction took longer than ${FORECAST_TIMEOUT_SECONDS} s and was stopped`
        : `The prediction failed: ${workerFailureReason(call)}`,
    );
  }

  async close(): Promise<void> {
    await endWorkerCalls(this.running);
  }
}

/** Trading days (the worker's forecast days) after `after` up to and including `until`. */
function tradingDaysAfter(after: string, until: string): number {
  if (until <= after) return 0;
  return daysBetween(after, until).slice(1).filter(isTradingDay).length;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
