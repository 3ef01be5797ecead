// SCHEMAS_DIR: a server started on a copy of schemas/ serves that copy's problems, to the API and, file by
// file, to the browser (GET /api/schemas, which the web app builds its registry from), with the
// validators the browser runs for them (GET /api/schemas/validators.js).

import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createDefaultAppData,
  createRegistry,
  installPrecompiledValidators,
  validateAppData,
  type PrecompiledValidators,
} from '../../src/engine';
import { DEFAULT_SCHEMAS_DIR, loadSchemaSources } from '../../src/engine/node/load-schemas';
import * as runtime from '../../src/engine/validator-runtime';
import { startStack, type TestStack } from '../test-support/harness';

const NEW_ID = 'claim-screening';

type SchemasReply = { success: boolean; data: Record<string, { id?: string; listed?: boolean }> };

describe('a server started on SCHEMAS_DIR', () => {
  let root: string;
  let stack: TestStack;

  beforeAll(async () => {
    // The copy lists vehicle routing; the samples are the repository's, beside the copy.
    root = mkdtempSync(path.join(os.tmpdir(), 'qml-schemas-dir-'));
    cpSync(DEFAULT_SCHEMAS_DIR, path.join(root, 'schemas'), { recursive: true });
    symlinkSync(path.resolve(DEFAULT_SCHEMAS_DIR, '..', 'samples'), path.join(root, 'samples'));
    const file = path.join(root, 'schemas', 'problems', 'vehicle-routing.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), listed: true }));
    stack = await startStack(
      { database: 'pglite', queue: 'in-process' },
      { SCHEMAS_DIR: path.join(root, 'schemas') },
    );
  });
  afterAll(async () => {
    await stack?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("lists the copy's problems: vehicle routing is listed there", async () => {
    const listed = (await stack.app.inject({ url: '/api/problems' })).json() as { data: { id: string }[] };
    expect(listed.data.map((p) => p.id)).toContain('vehicle-routing');
  });

  it('sends the browser every file of the copy, keyed by its path, and 304 for the copy it holds', async () => {
    const reply = await stack.app.inject({ url: '/api/schemas' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['cache-control']).toBe('no-cache');
    const body = reply.json() as SchemasReply;
    expect(Object.keys(body.data).sort()).toEqual(
      Object.keys(loadSchemaSources(path.join(root, 'schemas'))).sort(),
    );
    expect(body.data['problems/vehicle-routing.json']).toMatchObject({ id: 'vehicle-routing', listed: true });

    const etag = String(reply.headers.etag);
    const again = await stack.app.inject({ url: '/api/schemas', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // RFC 9110's weak comparison, as the demo data's conditional GETs answer it: a weak tag and '*' match too.
    for (const held of [`W/${etag}`, `"other", ${etag}`, '*']) {
      const revalidated = await stack.app.inject({ url: '/api/schemas', headers: { 'if-none-match': held } });
      expect(revalidated.statusCode, held).toBe(304);
    }
    const stale = await stack.app.inject({ url: '/api/schemas', headers: { 'if-none-match': '"other"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('sends the files gzipped to a client that accepts gzip', async () => {
    const reply = await stack.app.inject({ url: '/api/schemas', headers: { 'accept-encoding': 'gzip, br' } });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(gunzipSync(reply.rawPayload).toString('utf8')) as SchemasReply;
    expect(body.data['problems/vehicle-routing.json']).toMatchObject({ listed: true });
  });
});

describe("the copy's validators (GET /api/schemas/validators.js)", () => {
  let root: string;
  let stack: TestStack;

  beforeAll(async () => {
    // A copy with a problem of its own: fraud detection under another id, run by the fraud handler.
    root = mkdtempSync(path.join(os.tmpdir(), 'qml-validators-dir-'));
    cpSync(DEFAULT_SCHEMAS_DIR, path.join(root, 'schemas'), { recursive: true });
    symlinkSync(path.resolve(DEFAULT_SCHEMAS_DIR, '..', 'samples'), path.join(root, 'samples'));
    const fraud = JSON.parse(
      readFileSync(path.join(DEFAULT_SCHEMAS_DIR, 'problems', 'fraud-detection.json'), 'utf8'),
    ) as { job: { request: object } };
    writeFileSync(
      path.join(root, 'schemas', 'problems', `${NEW_ID}.json`),
      JSON.stringify({
        ...fraud,
        id: NEW_ID,
        name: 'Claim Screening',
        order: 9,
        job: {
          ...fraud.job,
          worker: 'fraud-detection',
          request: { ...fraud.job.request, path: `/${NEW_ID}/execute-job/{userId}` },
        },
      }),
    );
    stack = await startStack(
      { database: 'pglite', queue: 'in-process' },
      { SCHEMAS_DIR: path.join(root, 'schemas') },
    );
  });
  afterAll(async () => {
    await stack?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('are a JavaScript module, cached with revalidation: 304 for the copy the client holds, gzip on request', async () => {
    // Writing the module takes seconds of CPU on a busy machine.
    const reply = await stack.app.inject({ url: '/api/schemas/validators.js' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.body).toMatch(/^export default function validators\(runtime\)/m);
    const etag = String(reply.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);

    const again = await stack.app.inject({
      url: '/api/schemas/validators.js',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');

    const gzipped = await stack.app.inject({
      url: '/api/schemas/validators.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.rawPayload).toString('utf8')).toBe(reply.body);
  }, 120_000);

  it("hold a validator for the copy's own problem, which the browser's registry of the copy uses", async () => {
    const code = (await stack.app.inject({ url: '/api/schemas/validators.js' })).body;
    const file = path.join(root, 'validators.mjs');
    writeFileSync(file, code);
    const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
      default: (r: typeof runtime) => PrecompiledValidators;
    };
    const validators = module.default(runtime);
    expect(Object.keys(validators.problems)).toContain(NEW_ID);

    // The registry as the browser builds it, from GET /api/schemas.
    const sources = ((await stack.app.inject({ url: '/api/schemas' })).json() as { data: object }).data;
    const problem = createRegistry(sources as Parameters<typeof createRegistry>[0]).getProblem(NEW_ID);
    const compiled = validateAppData(problem, createDefaultAppData(problem));
    // The served validator is used (its fingerprint matches the copy's schema) and answers as Node does.
    installPrecompiledValidators(validators);
    let served;
    try {
      served = validateAppData(problem, createDefaultAppData(problem));
    } finally {
      installPrecompiledValidators(undefined);
    }
    expect(served.valid).toBe(false);
    expect(served).toEqual(compiled);
  }, 120_000);
});

describe('a server without SCHEMAS_DIR', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
  });
  afterAll(async () => stack?.close());

  it("sends the repository's schemas, vehicle routing unlisted as the spec wants", async () => {
    const body = (await stack.app.inject({ url: '/api/schemas' })).json() as SchemasReply;
    expect(body.data).toEqual(loadSchemaSources(DEFAULT_SCHEMAS_DIR));
    expect(body.data['problems/vehicle-routing.json']).toMatchObject({ listed: false });
  });
});
