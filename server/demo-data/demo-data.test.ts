import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { startStack, type TestStack } from '../test-support/harness';
import { exportDemoData, NOTHING_TO_EXPORT } from './demo-data-export';
import { NOT_GENERATED } from './demo-data-routes';
import { DemoDataStore, INDEX_FILE } from './demo-data-store';

// The landing page's demo data routes through the real app: 404 with a clear detail while nothing
// has been exported, and, over a directory of
// files this test writes itself, strong ETags, Last-Modified and 304 to conditional requests.

const PATHS = [
  '/api/demo-data/stock-price-prediction/records',
  '/api/demo-data/stock-price-prediction/compare',
  '/api/demo-data/stock-price-prediction/outputs/336/detail',
  '/api/demo-data/stock-price-prediction/outputs/336/record',
];
const RECORDS = '/api/demo-data/fraud-detection/records';
const MTIME = new Date('2026-03-01T10:00:00.000Z');

describe('demo data routes', () => {
  let stack: TestStack;
  let app: FastifyInstance;
  let dir: string;
  const write = (relative: string, data: unknown) => {
    const file = path.join(dir, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    const text = JSON.stringify({ success: true, data });
    writeFileSync(file, text);
    utimesSync(file, MTIME, MTIME);
    return text;
  };

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    dir = mkdtempSync(path.join(tmpdir(), 'qml-demo-data-'));
    app = await buildApp({ ...stack.services, demoData: new DemoDataStore(dir) }, { serveWebApp: false });
  });
  afterAll(async () => {
    await app?.close();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 saying the demo data has not been generated yet (the shipped directory has none)', async () => {
    for (const url of PATHS) {
      const reply = await stack.app.inject({ url });
      expect(reply.statusCode, url).toBe(404);
      expect(reply.json()).toEqual({ success: false, detail: NOT_GENERATED });
      expect(reply.json().detail).toMatch(/^Demo data has not been generated yet/);
    }
  });

  it('serves each kind of file as written, with a strong content-hash ETag and Last-Modified', async () => {
    const texts = [
      write('stock-price-prediction/records.json', { records: [{ id: 336 }] }),
      write('stock-price-prediction/compare.json', { outputs: [] }),
      write('stock-price-prediction/outputs/336/detail.json', { id: 336, status: 'Completed' }),
      write('stock-price-prediction/outputs/336/record.json', { id: 336, metrics: { accuracy: 0.5 } }),
    ];
    write(INDEX_FILE, { problems: ['stock-price-prediction'] });
    for (const [index, url] of PATHS.entries()) {
      const reply = await app.inject({ url });
      expect(reply.statusCode, url).toBe(200);
      expect(reply.body).toBe(texts[index]);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      const hash = createHash('sha256').update(texts[index]!).digest('base64url');
      expect(reply.headers.etag).toBe(`"${hash}"`);
      expect(reply.headers['last-modified']).toBe(MTIME.toUTCString());
      expect(reply.headers['cache-control']).toBe('no-cache');
    }
  });

  it('answers 304 with no body to a matching If-None-Match, and 200 to another tag', async () => {
    write('fraud-detection/records.json', { records: [{ id: 349 }, { id: 350 }] });
    write(INDEX_FILE, { problems: ['fraud-detection'] });
    const first = await app.inject({ url: RECORDS });
    const etag = first.headers.etag as string;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await app.inject({ url: RECORDS, headers: { 'if-none-match': header } });
      expect(again.statusCode, header).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
    }
    const other = await app.inject({ url: RECORDS, headers: { 'if-none-match': '"stale"' } });
    expect(other.statusCode).toBe(200);
    expect(other.json()).toEqual({ success: true, data: { records: [{ id: 349 }, { id: 350 }] } });
  });

  it('answers If-Modified-Since by the file time; If-None-Match decides when both are sent', async () => {
    write('fraud-detection/records.json', { records: [] });
    const at = (ms: number) => new Date(MTIME.getTime() + ms).toUTCString();
    const ask = (headers: Record<string, string>) => app.inject({ url: RECORDS, headers });
    expect((await ask({ 'if-modified-since': at(0) })).statusCode).toBe(304);
    expect((await ask({ 'if-modified-since': at(60_000) })).statusCode).toBe(304);
    expect((await ask({ 'if-modified-since': at(-60_000) })).statusCode).toBe(200);
    expect((await ask({ 'if-modified-since': 'not a date' })).statusCode).toBe(200);
    expect((await ask({ 'if-none-match': '"stale"', 'if-modified-since': at(60_000) })).statusCode).toBe(200);
  });

  it('gives a rewritten file a new ETag: the old tag gets the new content', async () => {
    write('fraud-detection/records.json', { records: [{ id: 1 }] });
    const before = (await app.inject({ url: RECORDS })).headers.etag as string;
    write('fraud-detection/records.json', { records: [{ id: 2 }] });
    const after = await app.inject({ url: RECORDS, headers: { 'if-none-match': before } });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before);
    expect(after.json().data).toEqual({ records: [{ id: 2 }] });
  });

  it('refuses malformed ids with 400 naming the field, and unknown files with 404', async () => {
    write(INDEX_FILE, { problems: [] });
    for (const url of ['/api/demo-data/UPPER/records', '/api/demo-data/..%2F..%2Fetc/records']) {
      const reply = await app.inject({ url });
      expect(reply.statusCode, url).toBe(400);
      expect(reply.json().errors[0].field).toBe('/problemId');
    }
    const badOutput = await app.inject({ url: '/api/demo-data/fraud-detection/outputs/abc/detail' });
    expect(badOutput.statusCode).toBe(400);
    expect(badOutput.json().errors[0].field).toBe('/outputId');
    const unknown = await app.inject({ url: '/api/demo-data/brain-tumor/outputs/186/record' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, detail: 'No such demo data' });
  });
});

describe('npm run demo:export (exportDemoData)', () => {
  let stack: TestStack;
  let out: string;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    out = mkdtempSync(path.join(tmpdir(), 'qml-demo-export-'));
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('says there is nothing to export and writes nothing while no example has a completed output', async () => {
    const report = await exportDemoData(stack.services.db, stack.services.registry, out);
    expect(report).toEqual({ exported: [], nothing: NOTHING_TO_EXPORT });
    expect(readdirSync(out)).toEqual([]);
  });

  it('exports a completed run of an example application, and the routes serve it', async () => {
    // A run as the job runner records it.
    const db = stack.services.db;
    const { rows: users } = await db.query<{ id: string }>('select id from users limit 1');
    const { rows: apps } = await db.query<{ id: string }>(
      `insert into applications (user_id, app_name, app_problem_id) values ($1, 'Fraud Detection Example', 'fraud-detection') returning id`,
      [users[0]!.id],
    );
    const result = {
      problem: 'fraud-detection',
      model: 'Logistic Regression',
      model_type: 'Classical',
      metrics: { accuracy: 0.9 },
      confusion_matrix: [
        [90, 4],
        [6, 0],
      ],
    };
    const { rows: jobs } = await db.query<{ id: string }>(
      `insert into jobs (kind, owner_id, status, params, result, application_id, finished_at)
       values ('fraud-detection', $1, 'Completed', '{"model_type":"Classical"}', $2, $3, now()) returning id`,
      [users[0]!.id, JSON.stringify(result), apps[0]!.id],
    );
    const id = Number(jobs[0]!.id);
    const report = await exportDemoData(db, stack.services.registry, out);
    expect(report.exported).toEqual([
      { problemId: 'fraud-detection', applicationId: Number(apps[0]!.id), outputIds: [id] },
    ]);
    const app = await buildApp(
      { ...stack.services, demoData: new DemoDataStore(out) },
      { serveWebApp: false },
    );
    try {
      const compare = await app.inject({ url: '/api/demo-data/fraud-detection/compare' });
      expect(compare.statusCode).toBe(200);
      expect(compare.json().data.outputs).toEqual([
        expect.objectContaining({ id, model_type: 'Classical', confusion_matrix: result.confusion_matrix }),
      ]);
      const records = await app.inject({ url: '/api/demo-data/fraud-detection/records' });
      expect(records.json().data.records.map((r: { id: number }) => r.id)).toEqual([id]);
      const detail = await app.inject({ url: `/api/demo-data/fraud-detection/outputs/${id}/detail` });
      expect(detail.json().data.result).toEqual(result);
      const missing = await app.inject({ url: '/api/demo-data/stock-price-prediction/compare' });
      expect(missing.json()).toEqual({ success: false, detail: 'No such demo data' });
    } finally {
      await app.close();
    }
  });
});
