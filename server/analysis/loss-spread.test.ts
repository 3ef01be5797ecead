// A run repeated over seeds in the comparison and the run table: its loss history is the mean over the
// seeds, and the reply carries the sd beside it (spread) so the chart draws the band. The run table
// reads it from the jobs table (a row written here, no training); the comparison from a recorded
// output made repeated.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistry } from '../../src/engine/node/load-schemas';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { Database } from '../db/database';
import type { JobRecord } from '../jobs/jobs-repository';
import { outputDetail } from '../outputs/output-detail';
import { migratedMemoryDatabase } from '../test-support/harness';
import { AnalysisEngine } from './analysis-engine';
import { lossSpreadOf } from './loss-spread';
import type { AnalysisSubject } from './output-facts';
import { runTable } from './run-table';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures are edited freely

const band = (mean: number[], sd: number[]) => ({ mean, sd });
const repeatsBlock = {
  count: 3,
  seeds: [42, 43, 44],
  confidence: 0.95,
  metrics: {},
  baseline: null,
  baselines: {},
  runs: [],
  losses: { train: band([0.3, 0.2], [0.02, 0.01]), test: band([0.4, 0.3], [0.05, 0.04]) },
};

describe('loss spread of repeated runs', () => {
  let db: Database;
  beforeAll(async () => {
    db = await migratedMemoryDatabase();
  });
  afterAll(async () => db?.close());

  it('the run table gives a repeated run its sd per epoch and a single run none', async () => {
    const user = await db.query<{ id: number }>(
      `insert into users (name, email, password_hash) values ('a', 'spread@example.com', 'x') returning id`,
    );
    const app = await db.query<{ id: number }>(
      `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, 'Stocks', 'stock-price-prediction', '{}') returning id`,
      [user.rows[0]!.id],
    );
    const losses = { train: [0.3, 0.2], test: [0.4, 0.3] };
    for (const result of [
      { metrics: { rmse: 0.2 }, losses },
      { metrics: { rmse: 0.1 }, losses, repeats: repeatsBlock },
    ])
      await db.query(
        `insert into jobs (kind, owner_id, status, params, result, application_id) values ('stock-price-prediction', $1, 'Completed', '{}', $2, $3)`,
        [user.rows[0]!.id, JSON.stringify(result), app.rows[0]!.id],
      );
    const records = await new ApplicationsRepository(db).listRuns(Number(app.rows[0]!.id));
    const { runs } = runTable(records, null);
    expect(runs.map((r) => r.metrics.rmse)).toEqual([0.1, 0.2]); // newest first
    expect(runs[0]!.spread).toEqual({ seeds: 3, sd: { train_loss: [0.02, 0.01], test_loss: [0.05, 0.04] } });
    expect(runs[0]!.history).toEqual({ train_loss: [0.3, 0.2], test_loss: [0.4, 0.3] });
    expect(runs[1]!.spread).toBeNull();
  });

  it('the comparison gives each repeated run its spread', () => {
    const registry = loadRegistry();
    const fixture = JSON.parse(
      readFileSync(path.resolve('server/analysis/fixtures/stock-lstm.json'), 'utf8'),
    ) as Json;
    const subject = (id: number, repeats: Json | null): AnalysisSubject => {
      const job = structuredClone(fixture);
      job.id = id;
      if (repeats) {
        const epochs = job.result.losses.test.length as number;
        job.result.repeats = {
          ...repeats,
          losses: {
            train: band(job.result.losses.train, Array(epochs).fill(0.01)),
            test: band(job.result.losses.test, Array(epochs).fill(0.02)),
          },
        };
      }
      const record = job as unknown as JobRecord;
      return {
        job: record,
        detail: outputDetail(record, []),
        problemName: registry.getProblem(record.kind).name,
      };
    };
    const result = new AnalysisEngine().compare(subject(1, null), subject(2, repeatsBlock), 'technical');
    expect(result.spread.a).toBeNull();
    expect(result.spread.b!.seeds).toBe(3);
    expect(result.spread.b!.sd.test_loss).toHaveLength(result.curves.b!.test_loss!.length);
    expect(result.spread.b!.sd.test_loss[0]).toBe(0.02);
    expect(lossSpreadOf({ count: 3, losses: null })).toBeNull();
  });
});
