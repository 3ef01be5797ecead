import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapJobBody, type AppData } from '../src/engine';
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
});
