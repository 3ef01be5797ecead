import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapJobBody, mapJobRequest, type AppData } from '../src/engine';
import { bearer, startStack, type TestStack } from './test-support/harness';

// Requests as a client written from the spec documents alone sends them (workspace.md sections 3, 5
// and 7, platform-shell.md): each gets the spec's behaviour and the spec's words.

const STOCK = 'stock-price-prediction';

describe('a client written from the spec', () => {
  let stack: TestStack;
  let token: string;
  let userId: number;
  let stockAppId: number;

  const post = async (url: string, payload: object, headers: Record<string, string> = {}) => {
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api${url}`,
      headers: { ...bearer(token), ...headers },
      payload,
    });
    return { status: reply.statusCode, body: reply.json() as Record<string, unknown> };
  };

  const createApp = async (problemId: string, appData: AppData) => {
    const { rows } = await stack.services.db.query<{ id: number }>(
      `insert into applications (user_id, app_name, app_problem_id, app_data) values ($1, $2, $3, $4)
       returning id`,
      [userId, `${problemId} spec client`, problemId, JSON.stringify(appData)],
    );
    return Number(rows[0]!.id);
  };

  /** The job body the saved application gives (the engine's mapping, with the sample's shape). */
  const savedBody = (problemId: string, appData: AppData, applicationId: number) => {
    const url = String((appData.dataset as { url?: unknown }).url);
    const sample = stack.services.samples.find(url.split('/').pop()!)!;
    return mapJobBody(stack.services.registry.getProblem(problemId), appData, {
      applicationId,
      userId,
      rowCount: sample.rows,
      columns: [...sample.columns],
    });
  };

  const example = (problemId: string) =>
    structuredClone(stack.services.registry.getProblem(problemId).example.appData) as AppData;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    token = await stack.userToken('spec-client@example.com');
    userId = (await stack.services.repositories.users.findByEmail('spec-client@example.com'))!.id;
    stockAppId = await createApp(STOCK, example(STOCK));
  });
  afterAll(async () => stack?.close());

  describe('inference refusals are the problem file’s words', () => {
    const infer = (payload: object) => post(`/${STOCK}/inference/${userId}/${stockAppId}`, payload);

    it("no feature selected: 'Please select a feature' on /features", async () => {
      for (const payload of [
        { features: [], data_url: 'samples/apple_google_stock.csv' },
        { data_url: 'samples/apple_google_stock.csv' },
      ]) {
        const reply = await infer(payload);
        expect(reply.status).toBe(400);
        expect(reply.body.detail).toBe('Please select a feature');
        expect(reply.body.errors).toEqual([{ field: '/features', message: 'Please select a feature' }]);
      }
    });

    it("no CSV: 'Please upload a csv file' on /data_url", async () => {
      for (const payload of [{ features: ['Close'] }, { features: ['Close'], data_url: '' }]) {
        const reply = await infer(payload);
        expect(reply.status).toBe(400);
        expect(reply.body.detail).toBe('Please upload a csv file');
        expect(reply.body.errors).toEqual([{ field: '/data_url', message: 'Please upload a csv file' }]);
      }
    });
  });

  it("a job body over a limit leads with the limit's own message, then the mismatch", async () => {
    const body = { ...savedBody(STOCK, example(STOCK), stockAppId), epochs: 150 };
    const reply = await post(`/${STOCK}/execute-job/${userId}`, body);
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(
      /^Failed to execute the application! Epochs must be less than or equal to 100; The request body does not match the saved application at \/epochs/,
    );
    const errors = reply.body.errors as { path: string; message: string }[];
    expect(errors.map((e) => [e.path, e.message.slice(0, 40)])).toEqual([
      ['/epochs', 'Epochs must be less than or equal to 100'],
      ['/epochs', 'The request body does not match the save'],
    ]);
  });

  /** PUT /applications/update-app-data as the spec's Save sends it. */
  const save = async (applicationId: number, appData: AppData) => {
    const reply = await stack.app.inject({
      method: 'PUT',
      url: '/api/applications/update-app-data',
      headers: bearer(token),
      payload: { application_id: applicationId, user_id: userId, app_data: appData },
    });
    return { status: reply.statusCode, body: reply.json() as Record<string, unknown> };
  };
  const stored = async (applicationId: number) =>
    (
      await stack.services.db.query<{ app_data: AppData }>(
        'select app_data from applications where id = $1',
        [applicationId],
      )
    ).rows[0]!.app_data;

  it("an index that is not an integer is refused with the spec's messages", async () => {
    const stock = example(STOCK);
    Object.assign(stock.preprocess!, { splitter: { from_index: 1.5, to_index: 60.5 } });
    const refused = await save(stockAppId, stock);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { field: '/app_data/preprocess/splitter/from_index', message: 'From Index must be a valid number' },
      { field: '/app_data/preprocess/splitter/to_index', message: 'To Index must be a valid number' },
    ]);

    const brain = example('brain-tumor');
    const brainId = await createApp('brain-tumor', brain);
    (brain.dataset as { training_range: object }).training_range = { from_index: 1.5, to_index: 50 };
    const brainRefused = await save(brainId, brain);
    expect(brainRefused.status).toBe(400);
    expect(brainRefused.body.errors).toEqual([
      { field: '/app_data/dataset/training_range/from_index', message: 'must be an integer' },
    ]);
  });

  it('a selected feature that is not a column of the dataset is refused at save, on its field', async () => {
    const stock = example(STOCK);
    Object.assign(stock.preprocess!, {
      training_features: ['Close', 'Volume?'],
      prediction_features: ['Nope'],
    });
    const refused = await save(stockAppId, stock);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { field: '/app_data/preprocess/training_features', message: 'Volume? is not a column of the dataset' },
      { field: '/app_data/preprocess/prediction_features', message: 'Nope is not a column of the dataset' },
    ]);
    const demand = example('demand-forecasting');
    const demandId = await createApp('demand-forecasting', demand);
    Object.assign(demand.preprocess!, { prediction_feature: 'Sales' });
    const demandRefused = await save(demandId, demand);
    expect(demandRefused.body.errors).toEqual([
      { field: '/app_data/preprocess/prediction_feature', message: 'Sales is not a column of the dataset' },
    ]);
    expect((await save(stockAppId, example(STOCK))).status).toBe(200);
  });

  it("'Close\\r' is stored and sent to the job as 'Close'", async () => {
    const appData = example(STOCK);
    Object.assign(appData.preprocess!, {
      training_features: ['Close\r', 'High\r', 'Low', 'Open'],
      prediction_features: ['Close\r'],
      splitter: { from_index: 1, to_index: 60 },
    });
    Object.assign(appData.model_configurations!, {
      model_type: 'Classical',
      training_model_method: 'GRU',
      epochs: 5,
      hidden_layers: 4,
    });
    expect((await save(stockAppId, appData)).status).toBe(200);
    const saved = await stored(stockAppId);
    expect(saved.preprocess).toMatchObject({
      training_features: ['Close', 'High', 'Low', 'Open'],
      prediction_features: ['Close'],
    });
    // The spec's client strips them from the payload too: the body matches the saved application.
    const body = savedBody(STOCK, appData, stockAppId);
    expect(body.training_features).toEqual(['Close', 'High', 'Low', 'Open']);
    const run = await post(`/${STOCK}/execute-job/${userId}`, body);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const outputId = (run.body.data as { output_id: number }).output_id;
    const { rows } = await stack.services.db.query<{ params: Record<string, unknown> }>(
      'select params from jobs where id = $1',
      [outputId],
    );
    expect(JSON.stringify(rows[0]!.params)).not.toContain('\\r');
    expect(JSON.stringify(rows[0]!.params)).toContain('"prediction_features":["Close"]');
    await stack.app.inject({
      method: 'POST',
      url: `/api/${STOCK}/stop-job/${outputId}`,
      headers: bearer(token),
    });
  });

  it("application data in the spec's shapes is accepted and stored in the problem file's", async () => {
    const stored0 = example(STOCK);
    const { model_type, quantum_device, ...rest } = stored0.model_configurations as Record<string, unknown>;
    const spec = {
      ...stored0,
      model_configurations: { ...rest, training_model_type: model_type, ...(quantum_device as object) },
    };
    const reply = await save(stockAppId, spec);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect((await stored(stockAppId)).model_configurations).toEqual(stored0.model_configurations);

    const brain = example('brain-tumor');
    const brainId = await createApp('brain-tumor', brain);
    const range = { from_index: 1, to_index: 80 };
    delete (brain.dataset as Record<string, unknown>).training_range;
    Object.assign(brain.model_configurations!, { fromIndex: 1, toIndex: 80, userId, appId: brainId });
    const brainReply = await save(brainId, brain);
    expect(brainReply.status, JSON.stringify(brainReply.body)).toBe(200);
    const brainStored = await stored(brainId);
    expect((brainStored.dataset as { training_range: object }).training_range).toEqual(range);
    expect(brainStored.model_configurations).not.toHaveProperty('fromIndex');
    expect(brainStored.model_configurations).not.toHaveProperty('appId');
  });

  it('an api-key header (authenticated calls) and an x-api-key header (demo data) are accepted and ignored', async () => {
    const get = (url: string, headers: Record<string, string>) =>
      stack.app.inject({ method: 'GET', url: `/api${url}`, headers });
    const detail = `/applications/${stockAppId}/detail`;
    const plain = await get(detail, bearer(token));
    const withKey = await get(detail, { ...bearer(token), 'api-key': 'spec-client-key' });
    expect(withKey.statusCode).toBe(200);
    expect(withKey.json()).toEqual(plain.json());
    // The key is no credential: without the bearer token the call is still refused.
    expect((await get(detail, { 'api-key': 'spec-client-key' })).statusCode).toBe(401);
    const job = await post(
      `/${STOCK}/inference/${userId}/${stockAppId}`,
      { features: [] },
      { 'api-key': 'k' },
    );
    expect(job.body.detail).toBe('Please select a feature');

    const records = '/demo-data/stock-price-prediction/records';
    const demo = await get(records, {});
    const demoWithKey = await get(records, { 'x-api-key': 'spec-client-key' });
    expect(demoWithKey.statusCode).toBe(demo.statusCode);
    expect(demoWithKey.body).toBe(demo.body);
  });

  it("brain tumor: the spec's fixed index query (1..10 classical) runs the saved range, and the log says so", async () => {
    const brain = example('brain-tumor');
    (brain.dataset as { training_range: object }).training_range = { from_index: 1, to_index: 80 };
    const brainId = await createApp('brain-tumor', brain);
    const problem = stack.services.registry.getProblem('brain-tumor');
    const request = mapJobRequest(problem, brain, { applicationId: brainId, userId, rowCount: 3064 });
    expect(request.query).toMatchObject({ start_idx: 1, end_idx: 80 });
    const run = await post(`${request.path}?user_id=${userId}&start_idx=1&end_idx=10`, request.body);
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const outputId = (run.body.data as { output_id: number }).output_id;
    const { rows } = await stack.services.db.query<{ payload: { message?: string } }>(
      "select payload from job_events where job_id = $1 and type = 'log' order by seq",
      [outputId],
    );
    expect(rows.map((r) => r.payload.message)).toContain(
      "The request's query (start_idx 1, end_idx 10) is the specification client's fixed one; the saved application's (start_idx 1, end_idx 80) is used.",
    );
    const job = await stack.services.db.query<{ extension: Record<string, unknown> }>(
      'select extension from jobs where id = $1',
      [outputId],
    );
    expect(job.rows[0]!.extension).toMatchObject({ range: { start: 1, end: 80 } });
    await stack.app.inject({
      method: 'POST',
      url: `/api/brain-tumor-classification/stop-job/${outputId}`,
      headers: bearer(token),
    });
    // Another range than the spec's fixed one is still refused.
    const other = await post(`${request.path}?user_id=${userId}&start_idx=1&end_idx=20`, request.body);
    expect(other.status).toBe(400);
  });

  it("predict without a model is refused with the problem file's words", async () => {
    const brainId = await createApp('brain-tumor', example('brain-tumor'));
    const reply = await post(`/brain-tumor-classification/predict/${userId}?application_id=${brainId}`, {
      image_url: 'https://example.com/scan.png',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.detail).toBe('Please choose a model: densenet121 or qmodel.');
    expect(reply.body.errors).toEqual([
      { field: '/model_name', message: 'Please choose a model: densenet121 or qmodel.' },
    ]);
  });
});
