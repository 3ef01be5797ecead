import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapJobBody, type AppData } from '../../src/engine';
import { ApplicationsRepository } from '../applications/applications-repository';
import type { UserRecord } from '../auth/users-repository';
import { datasetForWorker } from '../datasets/dataset-resolver';
import { bearer, startStack, waitForFinal, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';

// Inference end to end: a stock output trained through the real job path (queue, runner, the
// Python handler saving its model under DATA_DIR/outputs/{id}), then applied to CSVs through
// POST /api/stock-price-prediction/inference/{userId}/{applicationId} and the worker's infer command.

const STOCK = 'stock-price-prediction';
const SAMPLE_URL = 'samples/apple_google_stock.csv';
const SAMPLE_PATH = path.resolve(import.meta.dirname, '../../samples/apple_google_stock.csv');
const FEATURES = ['Close', 'High', 'Low', 'Open'];

interface Account {
  user: UserRecord;
  token: string;
}

interface InferenceReply {
  success: boolean;
  data: { actual: (number | null)[]; predicted: (number | null)[]; output_id: number; rows: number };
  detail: string;
  errors?: { field: string; message: string }[];
}

/** The sample's rows as objects (it has no quoted fields). */
function readSample(): Record<string, string>[] {
  const [header, ...lines] = readFileSync(SAMPLE_PATH, 'utf8').trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((v, i) => [names[i], v])));
}

describe('inference with a trained output', () => {
  let stack: TestStack;
  let owner: Account;
  let stranger: Account;
  let applications: ApplicationsRepository;
  let appId: number;
  let outputId: number;
  let window: number;

  const account = async (email: string): Promise<Account> => {
    const token = await stack.userToken(email);
    return { user: (await stack.services.repositories.users.findByEmail(email))!, token };
  };

  /** The stock example as a small classical run: GRU, 5 epochs (the schema's least), rows 1..120. */
  const smallStockAppData = (): AppData => {
    const example = structuredClone(stack.services.registry.getProblem(STOCK).example.appData) as AppData;
    Object.assign(example.preprocess!, { splitter: { from_index: 1, to_index: 120 }, train_test_split: 0.7 });
    Object.assign(example.model_configurations!, {
      model_type: 'Classical',
      training_model_method: 'GRU',
      epochs: 5,
      hidden_layers: 8,
    });
    return example;
  };

  const createApp = async (who: Account, problemId: string, appData: AppData) =>
    (
      await applications.create({
        userId: who.user.id,
        appName: `${problemId} inference test`,
        appProblemId: problemId,
        status: 'active',
        appData,
      })
    ).id;

  /** One run of the application through the job path (what execute-job submits). */
  const train = async (who: Account, applicationId: number, appData: AppData) => {
    const problem = stack.services.registry.getProblem(STOCK);
    const dataset = await stack.services.datasets.resolver.resolve(who.user, SAMPLE_URL);
    const body = mapJobBody(problem, appData, { applicationId, userId: who.user.id });
    const job = await stack.services.jobs.submit(who.user, STOCK, body, {
      applicationId,
      appData,
      name: `inference test #{id}`,
      extension: {
        dataset: datasetForWorker(dataset),
        normalization: '[0,1]',
        missing_values: 'impute_average',
        target_column: null,
        seed: 42,
      },
    });
    const final = await waitForFinal(stack, job.id, 120_000);
    const failure = final.events.filter((e) => e.type === 'error' || e.type === 'status').at(-1)?.payload;
    return { id: job.id, status: final.job.status, failure };
  };

  const infer = async (
    who: Account,
    body: object,
    ids: { userId?: number; appId?: number; problem?: string } = {},
  ) => {
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api/${ids.problem ?? STOCK}/inference/${ids.userId ?? who.user.id}/${ids.appId ?? appId}`,
      headers: bearer(who.token),
      payload: body,
    });
    return { status: reply.statusCode, body: reply.json() as InferenceReply };
  };

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    owner = await account('owner@example.com');
    stranger = await account('stranger@example.com');
    applications = new ApplicationsRepository(stack.services.db);
    const appData = smallStockAppData();
    appId = await createApp(owner, STOCK, appData);
    const run = await train(owner, appId, appData);
    expect(run.status, JSON.stringify(run.failure)).toBe('Completed');
    outputId = run.id;
    const card = JSON.parse(
      readFileSync(path.join(stack.config.dataDir, 'outputs', String(outputId), 'model.json'), 'utf8'),
    ) as { window: number; features: string[] };
    expect(card.features).toEqual(FEATURES);
    window = card.window;
  }, 180_000);
  afterAll(async () => stack?.close());

  it('offers inference for exactly the problems whose files have an inference section', () => {
    const offered = stack.services.inference.problems().map((problem) => problem.id);
    const expected = stack.services.registry.problems.filter((p) => p.inference).map((p) => p.id);
    expect(offered).toEqual(expected);
    expect(offered).toEqual(expect.arrayContaining([STOCK, 'demand-forecasting', 'fraud-detection']));
    expect(offered).not.toContain('portfolio-optimization');
  });

  it("applies the latest trained model to a CSV: the target's values beside the model's forecasts", async () => {
    const { status, body } = await infer(owner, {
      features: ['Open\r', 'High', 'Low', 'Close\r'], // a CSV header's carriage returns are stripped
      data_url: SAMPLE_URL,
    });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    const rows = readSample();
    expect(body.data.output_id).toBe(outputId);
    expect(body.data.rows).toBe(rows.length);
    // One forecast per row after the first `window` rows, each beside that row's Close.
    expect(body.data.actual).toEqual(rows.slice(window).map((row) => Number(row.Close)));
    expect(body.data.predicted).toHaveLength(rows.length - window);
    expect(body.data.predicted.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
    // Prices in dollars (the target scaler was inverted), not values in [0, 1].
    const mean = body.data.predicted.reduce<number>((sum, v) => sum + v!, 0) / body.data.predicted.length;
    expect(mean).toBeGreaterThan(5);

    // The same output named explicitly gives the same forecasts (a stored model, no retraining).
    const again = await infer(owner, { features: FEATURES, data_url: SAMPLE_URL, output_id: outputId });
    expect(again.status).toBe(200);
    expect(again.body.data.predicted).toEqual(body.data.predicted);
  }, 60_000);

  it("applies the model to the caller's uploaded CSV", async () => {
    const rows = readSample()
      .filter((row) => row.Ticker === 'AAPL')
      .slice(200, 240);
    const csv = [
      'Date,Open,High,Low,Close',
      ...rows.map((r) => [r.Date, r.Open, r.High, r.Low, r.Close].join(',')),
    ]
      .join('\r\n') // as a spreadsheet on Windows saves it
      .concat('\r\n');
    const form = fileUploadBody(csv, { filename: 'april.csv' });
    const upload = await stack.app.inject({
      method: 'POST',
      url: `/api/upload/${owner.user.id}/${encodeURIComponent(owner.user.email)}`,
      headers: { ...bearer(owner.token), ...form.headers },
      payload: form.payload,
    });
    expect(upload.statusCode).toBe(201);
    const { url } = upload.json() as { url: string };
    const { status, body } = await infer(owner, { features: FEATURES, data_url: url });
    expect(status).toBe(200);
    expect(body.data.rows).toBe(40);
    expect(body.data.actual).toEqual(rows.slice(window).map((row) => Number(row.Close)));
    expect(body.data.predicted).toHaveLength(40 - window);

    // Someone else's upload is not theirs to use.
    const theirs = await infer(
      stranger,
      { features: FEATURES, data_url: url },
      { appId: await strangerApp() },
    );
    expect(theirs.status).toBe(400);
    expect(theirs.body.errors?.[0]?.field).toBe('/data_url');
  }, 60_000);

  /** The stranger's own application, with a Completed output holding a copy of the trained model. */
  const strangerApp = async () => {
    const id = await createApp(stranger, STOCK, smallStockAppData());
    const { rows } = await stack.services.db.query<{ id: number }>(
      `insert into jobs (kind, owner_id, status, params, result, application_id)
       select kind, $1, status, params, result, $2 from jobs where id = $3 returning id`,
      [stranger.user.id, id, outputId],
    );
    const outputs = path.join(stack.config.dataDir, 'outputs');
    cpSync(path.join(outputs, String(outputId)), path.join(outputs, String(rows[0]!.id)), {
      recursive: true,
    });
    return id;
  };

  it('refuses features the CSV does not have, naming them, before any worker starts', async () => {
    const { status, body } = await infer(owner, { features: ['Close', 'Nope', 'Zip'], data_url: SAMPLE_URL });
    expect(status).toBe(400);
    expect(body.detail).toMatch(/^Missing features: Nope, Zip \(the CSV's columns are Date, Ticker, Open/);
    expect(body.errors).toEqual([{ field: '/features', message: body.detail }]);
  });

  it("refuses a selection without the model's features, naming the missing ones", async () => {
    const { status, body } = await infer(owner, { features: ['Close', 'Open'], data_url: SAMPLE_URL });
    expect(status).toBe(400);
    expect(body.detail).toBe(
      'Missing features: High, Low (the model was trained on Close, High, Low, Open; select each of them)',
    );
    expect(body.errors?.[0]?.field).toBe('/features');
  }, 60_000);

  it('refuses an empty selection and an empty data_url with the inference messages', async () => {
    const none = await infer(owner, { features: ['\r', ' '], data_url: SAMPLE_URL });
    expect(none.status).toBe(400);
    expect(none.body.detail).toBe('Please select a feature');
    const noFile = await infer(owner, { features: FEATURES, data_url: '  ' });
    expect(noFile.status).toBe(400);
    expect(noFile.body.detail).toBe('Please upload a csv file');
    const unknown = await infer(owner, { features: FEATURES, data_url: 'samples/nope.csv' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.field).toBe('/data_url');
    const badBody = await infer(owner, { features: 'Close', data_url: SAMPLE_URL });
    expect(badBody.status).toBe(400);
  });

  it("answers 404 for another user's id or application, and for a problem the application is not", async () => {
    const asOwnerId = await infer(
      stranger,
      { features: FEATURES, data_url: SAMPLE_URL },
      { userId: owner.user.id },
    );
    expect(asOwnerId.status).toBe(404);
    const ownApp = await infer(stranger, { features: FEATURES, data_url: SAMPLE_URL });
    expect(ownApp.status).toBe(404);
    expect(ownApp.body.detail).toBe('Application not found');
    const admin = await stack.app.inject({
      method: 'POST',
      url: `/api/${STOCK}/inference/${owner.user.id}/${appId}`,
      headers: bearer(stack.adminToken),
      payload: { features: FEATURES, data_url: SAMPLE_URL },
    });
    expect(admin.statusCode).toBe(404);
    const otherProblem = await infer(
      owner,
      { features: FEATURES, data_url: SAMPLE_URL },
      { problem: 'demand-forecasting' },
    );
    expect(otherProblem.status).toBe(404);
    const noInference = await infer(
      owner,
      { features: FEATURES, data_url: SAMPLE_URL },
      { problem: 'portfolio-optimization' },
    );
    expect(noInference.status).toBe(404);
    const anonymous = await stack.app.inject({
      method: 'POST',
      url: `/api/${STOCK}/inference/${owner.user.id}/${appId}`,
      payload: { features: FEATURES, data_url: SAMPLE_URL },
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses an application without a trained model, and outputs that have none or are not its own', async () => {
    const fresh = await createApp(owner, STOCK, smallStockAppData());
    const { status, body } = await infer(
      owner,
      { features: FEATURES, data_url: SAMPLE_URL },
      { appId: fresh },
    );
    expect(status).toBe(400);
    expect(body.detail).toBe('No trained model: run the application first');
    expect(body.errors?.[0]?.field).toBe('/output_id');

    // Another application's output is not this one's.
    const foreign = await infer(
      owner,
      { features: FEATURES, data_url: SAMPLE_URL, output_id: outputId },
      { appId: fresh },
    );
    expect(foreign.status).toBe(404);

    // A run that failed saved no model: refused by name, and the latest-model default skips it.
    const failing = smallStockAppData();
    Object.assign(failing.preprocess!, { prediction_features: ['Close', 'Open'] }); // the handler refuses two
    const failed = await train(owner, fresh, failing);
    expect(failed.status).toBe('Failed');
    const named = await infer(
      owner,
      { features: FEATURES, data_url: SAMPLE_URL, output_id: failed.id },
      { appId: fresh },
    );
    expect(named.status).toBe(400);
    expect(named.body.detail).toBe(`No trained model: output ${failed.id} is Failed`);
    const latest = await infer(owner, { features: FEATURES, data_url: SAMPLE_URL }, { appId: fresh });
    expect(latest.body.detail).toBe('No trained model: run the application first');
  }, 120_000);
});
