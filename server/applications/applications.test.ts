import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultAppData, createExampleAppData, validateAppData, type AppData } from '../../src/engine';
import { bearer, itIn, MODES, ONE_MODE, startStack, type TestStack } from '../test-support/harness';
import { fileUploadBody } from '../test-support/multipart-body';
import {
  APPLICATION_CREATED,
  APPLICATION_DELETED,
  APPLICATION_NOT_FOUND,
  APPLICATION_SAVED,
  INVALID_APP_DATA,
  UNKNOWN_PROBLEM,
  UNKNOWN_SAMPLE,
} from './applications-service';
import { USER_NOT_FOUND } from '../accounts/accounts-service';

// The applications API on PGlite and PostgreSQL: every call and message, the engine's rules on
// app_data (row limits from the shipped sample, not the client), the server's timestamps, deletion
// with outputs and files, and the ownership rule: someone else's user id or application is a 404
// on every path, while an admin may act on any.

const MISSING = 'Application name or problem ID is missing';
const REQUIRED = 'This field is required';
const TOO_LONG = 'Application name must not exceed 100 characters';

interface Created {
  id: number;
  app_name: string;
  app_problem: string;
  app_problem_id: string;
}
interface Detail {
  id: number;
  app_name: string;
  app_problem_id: string;
  app_problem: { id: string; name: string; workspace: string };
  category: { id: string; name: string };
  user_id: number;
  status: string;
  created_at: string;
  updated_at: string;
  app_data: AppData & Record<string, unknown>;
}

const clone = <T>(value: T): T => structuredClone(value);

describe.each(MODES.filter((m) => m.queue === 'in-process'))('applications on $database', (mode) => {
  // What is stored and read back runs on both databases; refusals, ownership and the registry's lists in one
  // mode (harness MODES).
  const itOnce = itIn(mode, [ONE_MODE]);
  let stack: TestStack;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };
  let adminId: number;

  async function signedIn(email: string) {
    const token = await stack.userToken(email);
    const { rows } = await stack.services.db.query<{ id: number }>('select id from users where email = $1', [
      email,
    ]);
    return { id: Number(rows[0]!.id), token };
  }

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    token: string | null,
    payload?: object,
  ) =>
    stack.app.inject({
      method,
      url: `/api${url}`,
      headers: token ? bearer(token) : {},
      ...(payload && { payload }),
    });

  async function createBlank(token: string, body: Record<string, unknown>) {
    return call('POST', '/applications/create-blank', token, { status: 'active', ...body });
  }

  async function newApp(owner: { id: number; token: string }, problem = 'stock-price-prediction') {
    const reply = await createBlank(owner.token, {
      app_name: `App ${problem}`,
      user_id: owner.id,
      app_problem_id: problem,
    });
    expect(reply.statusCode).toBe(201);
    return (reply.json() as { data: Created }).data;
  }

  async function detail(token: string, id: number) {
    return call('GET', `/applications/${id}/detail`, token);
  }

  async function rowCount(table: string, where = 'true', params: unknown[] = []) {
    const { rows } = await stack.services.db.query<{ n: number }>(
      `select count(*)::int as n from ${table} where ${where}`,
      params,
    );
    return Number(rows[0]!.n);
  }

  function example(problemId: string) {
    return createExampleAppData(stack.services.registry.getProblem(problemId));
  }

  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode);
    alice = await signedIn('alice@example.com');
    bob = await signedIn('bob@example.com');
    const { rows } = await stack.services.db.query<{ id: number }>(
      `select id from users where email = 'admin@example.com'`,
    );
    adminId = Number(rows[0]!.id);
  });
  afterAll(async () => stack?.close());

  itOnce('categories: public, listed problems only, in category then problem order', async () => {
    const reply = await call('GET', '/application-categories/all', null);
    expect(reply.statusCode).toBe(200);
    const categories = (
      reply.json() as {
        data: {
          id: string;
          name: string;
          label: string;
          app_problems: { id: string; workspace: string }[];
        }[];
      }
    ).data;
    expect(categories.map((c) => [c.id, c.name, c.label])).toEqual([
      ['financial', 'Financial', 'Financial Applications'],
      ['bioinformatics', 'Bioinformatics', 'Bioinformatics Applications'],
    ]);
    expect(categories[0]!.app_problems.map((p) => p.id)).toEqual([
      'stock-price-prediction',
      'portfolio-optimization',
      'fraud-detection',
      'demand-forecasting',
    ]);
    expect(categories[1]!.app_problems).toMatchObject([{ id: 'brain-tumor', workspace: 'developmentbio' }]);
    expect(JSON.stringify(categories)).not.toContain('vehicle-routing');
    const stock = categories[0]!.app_problems[0] as unknown as Record<string, unknown>;
    expect(stock).toMatchObject({ name: 'Stock Price Prediction', workspace: 'development' });
    expect((stock.useCases as string[]).length).toBe(5);
  });

  itOnce('examples: public, one per gallery problem, on shipped samples, each startable', async () => {
    const reply = await call('GET', '/examples', null);
    expect(reply.statusCode).toBe(200);
    const examples = (
      reply.json() as {
        data: {
          problem_id: string;
          problem_name: string;
          app_name: string;
          description: string;
          workspace: string;
          category: { id: string; name: string };
          app_data: Record<string, unknown>;
          dataset: { label: string; file: string };
        }[];
      }
    ).data;
    const listed = stack.services.registry.listExamples();
    const gallery = listed.map((e) => e.problemId);
    expect(examples.map((e) => e.problem_id)).toEqual(gallery);
    // The example's own description (what it does, on which data), not only the problem's.
    expect(examples.map((e) => e.description)).toEqual(listed.map((e) => e.description));
    expect(gallery).toEqual(expect.arrayContaining(['stock-price-prediction', 'brain-tumor']));
    expect(gallery).not.toContain('vehicle-routing');
    for (const entry of examples) {
      const expected = example(entry.problem_id);
      expect(entry.app_name).toBe(expected.appName);
      expect(entry.app_data).toEqual(expected.appData);
      // Starting it: the server accepts the example's own app_data and stores it as sent.
      const started = await call('POST', '/applications/create-from-example', alice.token, {
        app_problem_id: entry.problem_id,
        app_name: entry.app_name,
        user_id: alice.id,
        app_data: entry.app_data,
      });
      expect(started.statusCode, `${entry.problem_id}: ${started.body}`).toBe(201);
      const id = (started.json() as { data: Created }).data.id;
      expect(((await detail(alice.token, id)).json() as { data: Detail }).data.app_data).toEqual(
        entry.app_data,
      );
    }
    // The CSV examples name a shipped sample the download route serves.
    for (const entry of examples.filter((e) => e.dataset.file.endsWith('.csv'))) {
      expect(stack.services.samples.find(entry.dataset.file), entry.dataset.file).toBeDefined();
    }
  });

  it.runIf(mode.available)('create-blank: the reply, the default app_data and status active', async () => {
    const reply = await createBlank(alice.token, {
      app_name: '  My stock app  ',
      user_id: alice.id,
      app_problem_id: 'stock-price-prediction',
    });
    expect(reply.statusCode).toBe(201);
    const body = reply.json() as { success: boolean; message: string; data: Created };
    expect(body).toMatchObject({
      success: true,
      message: APPLICATION_CREATED,
      data: {
        app_name: 'My stock app',
        app_problem: 'Stock Price Prediction',
        app_problem_id: 'stock-price-prediction',
      },
    });
    const stored = ((await detail(alice.token, body.data.id)).json() as { data: Detail }).data;
    expect(stored).toMatchObject({
      id: body.data.id,
      app_name: 'My stock app',
      user_id: alice.id,
      status: 'active',
      app_problem: { id: 'stock-price-prediction', name: 'Stock Price Prediction', workspace: 'development' },
      category: { id: 'financial', name: 'Financial' },
    });
    expect(stored.app_data).toEqual(
      createDefaultAppData(stack.services.registry.getProblem('stock-price-prediction')),
    );
    const brain = await newApp(alice, 'brain-tumor');
    expect(brain.app_problem).toBe(stack.services.registry.getProblem('brain-tumor').name);
    expect(
      ((await detail(alice.token, brain.id)).json() as { data: Detail }).data.app_problem.workspace,
    ).toBe('developmentbio');
  });

  itOnce('create-blank: every refusal with its message and field', async () => {
    const before = await rowCount('applications');
    const refused = async (body: Record<string, unknown>) => {
      const reply = await createBlank(alice.token, { user_id: alice.id, ...body });
      expect(reply.statusCode, reply.body).toBe(400);
      return reply.json() as { success: false; detail: string; errors: { field: string; message: string }[] };
    };
    expect(await refused({ app_name: '', app_problem_id: 'stock-price-prediction' })).toEqual({
      success: false,
      detail: MISSING,
      errors: [{ field: '/app_name', message: REQUIRED }],
    });
    expect((await refused({ app_name: '   ', app_problem_id: 'stock-price-prediction' })).detail).toBe(
      MISSING,
    );
    expect(await refused({ app_name: 'x' })).toMatchObject({
      detail: MISSING,
      errors: [{ field: '/app_problem_id', message: REQUIRED }],
    });
    expect((await refused({})).errors.map((e) => e.field)).toEqual(['/app_name', '/app_problem_id']);
    for (const problem of ['no-such-problem', 'vehicle-routing']) {
      expect(await refused({ app_name: 'x', app_problem_id: problem })).toEqual({
        success: false,
        detail: UNKNOWN_PROBLEM,
        errors: [{ field: '/app_problem_id', message: UNKNOWN_PROBLEM }],
      });
    }
    expect(await refused({ app_name: 'a'.repeat(101), app_problem_id: 'fraud-detection' })).toEqual({
      success: false,
      detail: TOO_LONG,
      errors: [{ field: '/app_name', message: TOO_LONG }],
    });
    // The same rule and message as the browser's form (the engine's create-application form).
    expect(
      stack.services.registry.validateAccountForm('create-application', {
        app_name: 'a'.repeat(101),
        category: 'financial',
        app_problem_id: 'fraud-detection',
      }),
    ).toEqual([{ field: '/app_name', message: TOO_LONG }]);
    const control = await refused({ app_name: 'bad\u0000name', app_problem_id: 'fraud-detection' });
    expect(control.errors[0]!.field).toBe('/app_name');
    expect(
      (await refused({ app_name: 'x', app_problem_id: 'fraud-detection', status: 'archived' })).errors[0]!
        .field,
    ).toBe('/status');
    expect(await rowCount('applications')).toBe(before);
    const longest = await createBlank(alice.token, {
      app_name: 'a'.repeat(100),
      user_id: alice.id,
      app_problem_id: 'fraud-detection',
    });
    expect(longest.statusCode).toBe(201);
  });

  it.runIf(mode.available)(
    'create-from-example and copy-to-user: app_data checked by the engine, nothing written when refused',
    async () => {
      const { appData } = example('stock-price-prediction');
      for (const url of ['/applications/create-from-example', '/applications/copy-to-user']) {
        const before = await rowCount('applications');
        const bad = clone(appData);
        bad.model_configurations!.epochs = -3;
        bad.preprocess!.train_test_split = 7;
        const reply = await call('POST', url, alice.token, {
          app_problem_id: 'stock-price-prediction',
          app_name: 'Copy',
          user_id: alice.id,
          app_data: bad,
        });
        expect(reply.statusCode).toBe(400);
        const body = reply.json() as { detail: string; errors: { field: string; message: string }[] };
        expect(body.detail).toBe(INVALID_APP_DATA);
        // The engine's own messages, at pointers into the request body.
        const engine = validateAppData(stack.services.registry.getProblem('stock-price-prediction'), bad, {
          rowCount: stack.services.samples.find('apple_google_stock.csv')!.rows,
        });
        expect(body.errors).toEqual(
          engine.errors.map((e) => ({ field: `/app_data${e.path}`, message: e.message })),
        );
        expect(body.errors.map((e) => e.field)).toEqual(
          expect.arrayContaining([
            '/app_data/model_configurations/epochs',
            '/app_data/preprocess/train_test_split',
          ]),
        );
        expect(await rowCount('applications')).toBe(before);

        const missing = await call('POST', url, alice.token, {
          app_problem_id: '',
          app_name: 'Copy',
          user_id: alice.id,
          app_data: appData,
        });
        expect(missing.json()).toMatchObject({ detail: MISSING, errors: [{ field: '/app_problem_id' }] });

        const good = await call('POST', url, alice.token, {
          app_problem_id: 'stock-price-prediction',
          app_name: 'Copy',
          user_id: alice.id,
          app_data: appData,
        });
        expect(good.statusCode).toBe(201);
        expect(good.json()).toMatchObject({
          success: true,
          message: APPLICATION_CREATED,
          data: {
            app_name: 'Copy',
            app_problem: 'Stock Price Prediction',
            app_problem_id: 'stock-price-prediction',
          },
        });
      }
      const noData = await call('POST', '/applications/copy-to-user', alice.token, {
        app_problem_id: 'stock-price-prediction',
        app_name: 'Copy',
        user_id: alice.id,
      });
      expect(noData.statusCode).toBe(400);
      expect(noData.json()).toMatchObject({ errors: [{ field: '/app_data' }] });
    },
  );

  it.runIf(mode.available)(
    'the server keeps created_at and updated_at; the client cannot set them',
    async () => {
      const start = Date.now();
      const reply = await call('POST', '/applications/create-from-example', alice.token, {
        app_problem_id: 'stock-price-prediction',
        app_name: 'Timed',
        user_id: alice.id,
        app_data: example('stock-price-prediction').appData,
        created_at: '2001-01-01T00:00:00.000Z',
        updated_at: '2001-01-01T00:00:00.000Z',
        id: 999_999,
        status: 'deleted',
      });
      expect(reply.statusCode).toBe(201);
      const id = (reply.json() as { data: Created }).data.id;
      expect(id).not.toBe(999_999);
      const created = ((await detail(alice.token, id)).json() as { data: Detail }).data;
      expect(created.status).toBe('active');
      expect(Date.parse(created.created_at)).toBeGreaterThanOrEqual(start - 5000);
      expect(created.updated_at).toBe(created.created_at);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const appData = clone(created.app_data);
      appData.model_configurations!.epochs = 60;
      const saved = await call('PUT', '/applications/update-app-data', alice.token, {
        application_id: id,
        user_id: alice.id,
        app_data: appData,
        created_at: '2001-01-01T00:00:00.000Z',
        updated_at: '2001-01-01T00:00:00.000Z',
      });
      expect(saved.statusCode).toBe(200);
      const after = (saved.json() as { data: Detail }).data;
      expect(after.created_at).toBe(created.created_at);
      expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    },
  );

  it.runIf(mode.available)('update-app-data: saved whole, or refused whole with field messages', async () => {
    const app = await newApp(alice);
    // An unfinished application (the defaults, no dataset chosen) may be saved.
    const blank = ((await detail(alice.token, app.id)).json() as { data: Detail }).data;
    const unfinished = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: blank.app_data,
    });
    expect(unfinished.statusCode, unfinished.body).toBe(200);

    const appData = example('stock-price-prediction').appData;
    const saved = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: appData,
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({
      success: true,
      message: APPLICATION_SAVED,
      data: { id: app.id, app_data: appData },
    });
    const stored = ((await detail(alice.token, app.id)).json() as { data: Detail }).data;
    expect(stored.app_data).toEqual(appData);

    // One good change and one bad one: neither is written.
    const mixed = clone(appData);
    mixed.preprocess!.normalization = '[0,1]';
    mixed.model_configurations!.learning_rate = 'fast';
    mixed.model_configurations!.epochs = 75;
    const refused = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: mixed,
    });
    expect(refused.statusCode).toBe(400);
    const body = refused.json() as { detail: string; errors: { field: string; message: string }[] };
    expect(body.detail).toBe(INVALID_APP_DATA);
    expect(body.errors.map((e) => e.field)).toContain('/app_data/model_configurations/learning_rate');
    const unchanged = ((await detail(alice.token, app.id)).json() as { data: Detail }).data;
    expect(unchanged.app_data).toEqual(appData);
    expect(unchanged.updated_at).toBe(stored.updated_at);

    const badBody = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: 'text',
    });
    expect(badBody.statusCode).toBe(400);
    expect(badBody.json()).toMatchObject({ errors: [{ field: '/app_data' }] });
  });

  itOnce("row limits come from the stored sample's rows, not from the client", async () => {
    const app = await newApp(alice);
    const rows = stack.services.samples.find('apple_google_stock.csv')!.rows;
    const save = (toIndex: number, extra: Record<string, unknown> = {}) => {
      const appData = clone(example('stock-price-prediction').appData) as AppData & Record<string, unknown>;
      appData.preprocess!.splitter = { from_index: 1, to_index: toIndex };
      return call('PUT', '/applications/update-app-data', alice.token, {
        application_id: app.id,
        user_id: alice.id,
        app_data: { ...appData, ...extra },
        ...extra,
      });
    };
    const over = await save(rows + 1, { context: { rowCount: 10 ** 9 }, row_count: 10 ** 9 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      detail: INVALID_APP_DATA,
      errors: [
        { field: '/app_data/preprocess/splitter/to_index', message: `To Index cannot exceed ${rows}` },
      ],
    });
    expect((await save(rows)).statusCode).toBe(200);
    // A sample the server does not ship has no rows to count on: refused.
    const appData = clone(example('stock-price-prediction').appData);
    appData.dataset = { kind: 'sample', sample: 'nope', name: 'Nope', url: 'samples/nope.csv' };
    const unknown = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: appData,
    });
    expect(unknown.json()).toEqual({
      success: false,
      detail: INVALID_APP_DATA,
      errors: [{ field: '/app_data/dataset/sample', message: UNKNOWN_SAMPLE }],
    });
    // A declared sample whose url names another (larger or smaller) file is refused too: the rows
    // counted must be the rows the run reads.
    const swapped = clone(example('stock-price-prediction').appData);
    swapped.dataset = { ...swapped.dataset, url: 'samples/five_companies_stock.csv' };
    const mismatch = await call('PUT', '/applications/update-app-data', alice.token, {
      application_id: app.id,
      user_id: alice.id,
      app_data: swapped,
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({
      errors: [{ field: '/app_data/dataset/sample', message: UNKNOWN_SAMPLE }],
    });
  });

  itOnce(
    "an uploaded dataset's own rows and columns check a save; another user's upload is refused naming the field",
    async () => {
      // 40 rows of the stock sample as Alice's upload, with a ragged row the row rule drops.
      const lines = readFileSync(stack.services.samples.pathOf('apple_google_stock.csv'), 'utf8').split('\n');
      const text = [...lines.slice(0, 41), '2024-01-01,AAPL,1', ''].join('\n');
      const body = fileUploadBody(text);
      const uploaded = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/${alice.id}/alice%40example.com`,
        headers: { ...bearer(alice.token), ...body.headers },
        payload: body.payload,
      });
      expect(uploaded.statusCode).toBe(201);
      const upload = uploaded.json() as { url: string; filename: string; rows: number; dropped_rows: number };
      expect([upload.rows, upload.dropped_rows]).toEqual([40, 1]);
      const withUpload = (toIndex: number) => {
        const appData = clone(example('stock-price-prediction').appData) as AppData & Record<string, unknown>;
        appData.dataset = { kind: 'csv', name: 'mine.csv', url: upload.url };
        appData.preprocess!.splitter = { from_index: 1, to_index: toIndex };
        return appData;
      };
      const save = (who: { id: number; token: string }, appId: number, appData: object) =>
        call('PUT', '/applications/update-app-data', who.token, {
          application_id: appId,
          user_id: who.id,
          app_data: appData,
        });
      const mine = await newApp(alice);
      const over = await save(alice, mine.id, withUpload(41));
      expect(over.statusCode).toBe(400);
      expect(over.json()).toMatchObject({
        detail: INVALID_APP_DATA,
        errors: [{ field: '/app_data/preprocess/splitter/to_index', message: 'To Index cannot exceed 40' }],
      });
      expect((await save(alice, mine.id, withUpload(40))).statusCode).toBe(200);

      // Bob names Alice's upload: as if it did not exist, on the dataset's url field.
      const his = await newApp(bob);
      const refused = await save(bob, his.id, withUpload(10));
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        success: false,
        detail: INVALID_APP_DATA,
        errors: [
          {
            field: '/app_data/dataset/url',
            message: `The uploaded dataset "${upload.filename}" was not found.`,
          },
        ],
      });

      // A linked URL: unknown until fetched (saved unchecked); once its facts are cached, they count.
      const link = 'https://data.example.com/stock.csv';
      const linked = (toIndex: number) => ({
        ...withUpload(toIndex),
        dataset: { kind: 'url', name: link, url: link },
      });
      expect((await save(alice, mine.id, linked(5000))).statusCode).toBe(200);
      const cache = path.join(stack.config.dataDir, 'url-cache');
      const sha = 'a'.repeat(64);
      await mkdir(path.join(cache, 'urls'), { recursive: true });
      await writeFile(path.join(cache, `${sha}.csv`), text);
      await writeFile(
        path.join(cache, 'urls', `${createHash('sha256').update(link).digest('hex')}.json`),
        JSON.stringify({ url: link, sha256: sha, rows: 40, droppedRows: 1, columns: lines[0]!.split(',') }),
      );
      const cached = await save(alice, mine.id, linked(5000));
      expect(cached.statusCode).toBe(400);
      expect(cached.json()).toMatchObject({
        errors: [{ field: '/app_data/preprocess/splitter/to_index', message: 'To Index cannot exceed 40' }],
      });
    },
  );

  it.runIf(mode.available)('list: newest first, summaries without app_data', async () => {
    const carol = await signedIn('carol@example.com');
    const empty = await call('GET', `/applications/${carol.id}/all`, carol.token);
    expect(empty.json()).toEqual({ success: true, data: [] });
    const first = await newApp(carol, 'fraud-detection');
    const second = await newApp(carol, 'brain-tumor');
    const list = (
      (await call('GET', `/applications/${carol.id}/all`, carol.token)).json() as { data: Detail[] }
    ).data;
    expect(list.map((a) => a.id)).toEqual([second.id, first.id]);
    expect(list[0]).toMatchObject({
      app_problem: { id: 'brain-tumor', workspace: 'developmentbio' },
      category: { id: 'bioinformatics', name: 'Bioinformatics' },
      user_id: carol.id,
      status: 'active',
    });
    expect(list[0]).not.toHaveProperty('app_data');
  });

  it.runIf(mode.available)('outputs: the jobs that ran the application, newest first', async () => {
    const app = await newApp(alice);
    const other = await newApp(alice);
    const empty = await call('GET', `/application-outputs/${app.id}/all`, alice.token);
    expect(empty.json()).toEqual({ success: true, data: [] });
    const insert = (applicationId: number, status: string, params: object, finished: boolean) =>
      stack.services.db.query<{ id: number }>(
        `insert into jobs (kind, owner_id, status, params, application_id, finished_at)
         values ('train', $1, $2, $3, $4, ${finished ? 'now()' : 'null'}) returning id`,
        [alice.id, status, JSON.stringify(params), applicationId],
      );
    const done = Number((await insert(app.id, 'Completed', { name: 'Run one' }, true)).rows[0]!.id);
    const queued = Number((await insert(app.id, 'queued', {}, false)).rows[0]!.id);
    await insert(other.id, 'Completed', {}, true);
    const outputs = (
      (await call('GET', `/application-outputs/${app.id}/all`, alice.token)).json() as {
        data: {
          id: number;
          name: string;
          status: string;
          completed_at: string | null;
          application_id: number;
        }[];
      }
    ).data;
    expect(outputs.map((o) => [o.id, o.name, o.status, o.application_id])).toEqual([
      [queued, 'train', 'queued', app.id],
      [done, 'Run one', 'Completed', app.id],
    ]);
    expect(outputs[0]!.completed_at).toBeNull();
    expect(Date.parse(outputs[1]!.completed_at!)).not.toBeNaN();
  });

  it.runIf(mode.available)('delete: the application, its outputs and its files go', async () => {
    const app = await newApp(alice);
    const keep = await newApp(alice);
    const jobIds = (
      await stack.services.db.query<{ id: number }>(
        `insert into jobs (kind, owner_id, status, application_id) values ('train', $1, 'Completed', $2), ('train', $1, 'Completed', $3) returning id`,
        [alice.id, app.id, keep.id],
      )
    ).rows.map((row) => Number(row.id));
    // Each output's files (trained model, charts) live under outputs/<id>, not under the application's folder.
    const [goneOutput, keptOutput] = jobIds.map((id) => stack.services.outputs.outputDir(id));
    for (const folder of [goneOutput!, keptOutput!]) {
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, 'model.pt'), 'weights');
    }
    const dir = stack.services.applications.filesDir(app.id);
    await mkdir(path.join(dir, 'datasets'), { recursive: true });
    await writeFile(path.join(dir, 'datasets', 'upload.csv'), 'a,b\n1,2\n');
    const keepDir = stack.services.applications.filesDir(keep.id);
    await mkdir(keepDir, { recursive: true });

    const reply = await call('DELETE', `/applications/${app.id}/delete-by-user/${alice.id}`, alice.token);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ success: true, message: APPLICATION_DELETED });
    expect((await detail(alice.token, app.id)).statusCode).toBe(404);
    expect((await call('GET', `/application-outputs/${app.id}/all`, alice.token)).statusCode).toBe(404);
    expect(await rowCount('jobs', 'application_id = $1', [app.id])).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(goneOutput!)).toBe(false);
    // The other application keeps its output and its files.
    expect(await rowCount('jobs', 'application_id = $1', [keep.id])).toBe(1);
    expect(existsSync(keepDir)).toBe(true);
    expect(existsSync(keptOutput!)).toBe(true);
    const again = await call('DELETE', `/applications/${app.id}/delete-by-user/${alice.id}`, alice.token);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ detail: APPLICATION_NOT_FOUND });
  });

  itOnce("ownership: another user gets 404 for Alice's user id and applications on every path", async () => {
    const app = await newApp(alice);
    const appData = example('stock-price-prediction').appData;
    const before = ((await detail(alice.token, app.id)).json() as { data: Detail }).data;
    const count = await rowCount('applications');
    const attempts: [string, () => ReturnType<typeof call>, string][] = [
      ['list', () => call('GET', `/applications/${alice.id}/all`, bob.token), USER_NOT_FOUND],
      ['detail', () => detail(bob.token, app.id), APPLICATION_NOT_FOUND],
      ['outputs', () => call('GET', `/application-outputs/${app.id}/all`, bob.token), APPLICATION_NOT_FOUND],
      [
        'update as Alice',
        () =>
          call('PUT', '/applications/update-app-data', bob.token, {
            application_id: app.id,
            user_id: alice.id,
            app_data: appData,
          }),
        APPLICATION_NOT_FOUND,
      ],
      [
        'update as himself',
        () =>
          call('PUT', '/applications/update-app-data', bob.token, {
            application_id: app.id,
            user_id: bob.id,
            app_data: appData,
          }),
        APPLICATION_NOT_FOUND,
      ],
      [
        'delete as Alice',
        () => call('DELETE', `/applications/${app.id}/delete-by-user/${alice.id}`, bob.token),
        APPLICATION_NOT_FOUND,
      ],
      [
        'delete as himself',
        () => call('DELETE', `/applications/${app.id}/delete-by-user/${bob.id}`, bob.token),
        APPLICATION_NOT_FOUND,
      ],
      [
        'create-blank',
        () => createBlank(bob.token, { app_name: 'x', user_id: alice.id, app_problem_id: 'fraud-detection' }),
        USER_NOT_FOUND,
      ],
      ...['/applications/create-from-example', '/applications/copy-to-user'].map(
        (url) =>
          [
            url,
            () =>
              call('POST', url, bob.token, {
                app_name: 'x',
                user_id: alice.id,
                app_problem_id: 'stock-price-prediction',
                app_data: appData,
              }),
            USER_NOT_FOUND,
          ] as [string, () => ReturnType<typeof call>, string],
      ),
    ];
    for (const [name, attempt, detailText] of attempts) {
      const reply = await attempt();
      expect(reply.statusCode, name).toBe(404);
      expect(reply.json(), name).toEqual({ success: false, detail: detailText });
    }
    // Nothing changed, and Alice's own application answers her.
    expect(await rowCount('applications')).toBe(count);
    expect(((await detail(alice.token, app.id)).json() as { data: Detail }).data).toEqual(before);
    // An application id no one has is the same 404 as someone else's.
    const unknown = await detail(bob.token, 2_000_000_000);
    expect(unknown.json()).toEqual({ success: false, detail: APPLICATION_NOT_FOUND });
    // Alice cannot delete through her own user id an application that is not hers either.
    const bobs = await newApp(bob);
    const cross = await call('DELETE', `/applications/${bobs.id}/delete-by-user/${alice.id}`, alice.token);
    expect(cross.statusCode).toBe(404);
  });

  itOnce("an admin may act on anyone's applications; a user id no one has is 404", async () => {
    const admin = stack.adminToken;
    const made = await createBlank(admin, {
      app_name: 'By admin',
      user_id: alice.id,
      app_problem_id: 'fraud-detection',
    });
    expect(made.statusCode).toBe(201);
    const id = (made.json() as { data: Created }).data.id;
    const list = ((await call('GET', `/applications/${alice.id}/all`, admin)).json() as { data: Detail[] })
      .data;
    expect(list.map((a) => a.id)).toContain(id);
    expect(((await detail(admin, id)).json() as { data: Detail }).data.user_id).toBe(alice.id);
    expect((await call('GET', `/application-outputs/${id}/all`, admin)).statusCode).toBe(200);
    const appData = example('fraud-detection').appData;
    const saved = await call('PUT', '/applications/update-app-data', admin, {
      application_id: id,
      user_id: alice.id,
      app_data: appData,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const copied = await call('POST', '/applications/copy-to-user', admin, {
      app_name: 'Copied by admin',
      user_id: alice.id,
      app_problem_id: 'fraud-detection',
      app_data: appData,
    });
    expect(copied.statusCode).toBe(201);
    expect((await call('DELETE', `/applications/${id}/delete-by-user/${alice.id}`, admin)).statusCode).toBe(
      200,
    );
    // The admin's own applications are theirs too.
    expect((await call('GET', `/applications/${adminId}/all`, admin)).statusCode).toBe(200);
    for (const reply of [
      await call('GET', '/applications/2000000000/all', admin),
      await createBlank(admin, {
        app_name: 'x',
        user_id: 2_000_000_000,
        app_problem_id: 'fraud-detection',
      }),
    ]) {
      expect(reply.statusCode).toBe(404);
      expect(reply.json()).toEqual({ success: false, detail: USER_NOT_FOUND });
    }
  });

  itOnce(
    "copy-to-user leaves the caller's custom IBM token behind; create-from-example keeps it",
    async () => {
      const token = 'ab12CD34ef56GH78ij90KL12mn34';
      const { appData } = example('stock-price-prediction');
      const withToken = clone(appData);
      const device = withToken.model_configurations!.quantum_device as Record<string, unknown>;
      Object.assign(device, { check_custom_ibm_token: true, custom_ibm_token: token });
      const stored = async (url: string) => {
        const reply = await call('POST', url, alice.token, {
          app_name: `Token ${url.split('/').at(-1)}`,
          user_id: alice.id,
          app_problem_id: 'stock-price-prediction',
          app_data: withToken,
        });
        expect(reply.statusCode, reply.body).toBe(201);
        const id = (reply.json() as { data: Created }).data.id;
        const { rows } = await stack.services.db.query<{ app_data: string }>(
          'select app_data::text as app_data from applications where id = $1',
          [id],
        );
        return rows[0]!.app_data;
      };
      const copied = await stored('/applications/copy-to-user');
      expect(copied).not.toContain(token);
      expect(JSON.parse(copied).model_configurations.quantum_device.check_custom_ibm_token).toBe(false);
      expect(await stored('/applications/create-from-example')).toContain(token);
    },
  );

  itOnce('every applications call needs a signed-in user; bad ids are 400, not 500', async () => {
    const calls: [Parameters<typeof call>[0], string][] = [
      ['POST', '/applications/create-blank'],
      ['POST', '/applications/create-from-example'],
      ['POST', '/applications/copy-to-user'],
      ['GET', '/applications/1/all'],
      ['GET', '/applications/1/detail'],
      ['PUT', '/applications/update-app-data'],
      ['DELETE', '/applications/1/delete-by-user/1'],
      ['GET', '/application-outputs/1/all'],
    ];
    for (const [method, url] of calls) {
      const reply = await call(method, url, null, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(reply.statusCode, `${method} ${url}`).toBe(401);
    }
    for (const url of [
      '/applications/abc/all',
      '/applications/0/detail',
      '/application-outputs/99999999999/all',
    ]) {
      const reply = await call('GET', url, alice.token);
      expect(reply.statusCode, url).toBe(400);
    }
  });
});
