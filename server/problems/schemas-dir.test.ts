// SCHEMAS_DIR: a server started on a copy of schemas/ serves that copy's problems, to the API and, file by
// file, to the browser (GET /api/schemas, which the web app builds its registry from).

import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_SCHEMAS_DIR, loadSchemaSources } from '../../src/engine/node/load-schemas';
import { startStack, type TestStack } from '../test-support/harness';

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
  });

  it('sends the files gzipped to a client that accepts gzip', async () => {
    const reply = await stack.app.inject({ url: '/api/schemas', headers: { 'accept-encoding': 'gzip, br' } });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(gunzipSync(reply.rawPayload).toString('utf8')) as SchemasReply;
    expect(body.data['problems/vehicle-routing.json']).toMatchObject({ listed: true });
  });
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
