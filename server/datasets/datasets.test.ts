import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, MODES, startStack, type DatabaseMode, type TestStack } from '../test-support/harness';
import { DatasetRefusal } from './dataset-refusal';
import { DatasetResolver } from './dataset-resolver';
import { MALFORMED_MULTIPART } from '../platform/multipart-errors';
import { fileUploadBody } from '../test-support/multipart-body';
import { UrlFetcher } from './url-fetcher';

/** A CSV with a header and `rows` rows of "i,i*2". */
function csvOf(rows: number): string {
  return 'Day,Sales\n' + Array.from({ length: rows }, (_, i) => `${i},${i * 2}\n`).join('');
}

interface Account {
  id: number;
  name: string;
  email: string;
  token: string;
}

interface UploadReply {
  success: boolean;
  filename: string;
  url: string;
  rows: number;
  dropped_rows: number;
  columns: string[];
  size_bytes: number;
  message?: string;
  detail?: string;
}

const DATABASES = MODES.filter((m) => m.queue === 'in-process');

for (const { database, available } of DATABASES)
  describe.skipIf(!available)(`datasets on ${database}: upload, download, quota, resolver`, () => {
    let stack: TestStack;
    let alice: Account;
    let bob: Account;

    const account = async (email: string): Promise<Account> => {
      const token = await stack.userToken(email);
      const user = await stack.services.repositories.users.findByEmail(email);
      return { id: user!.id, name: user!.name, email, token };
    };

    beforeAll(async () => {
      // Small limits so the refusals are quick: 4 KB per file, 8 KB per user.
      stack = await startStack(
        { database: database as DatabaseMode, queue: 'in-process' },
        { UPLOAD_MAX_BYTES: '4096', DATASET_QUOTA_BYTES: '8192' },
      );
      alice = await account('alice@example.com');
      bob = await account('bob@example.com');
    });
    afterAll(async () => stack?.close());

    const upload = async (
      who: Account,
      body: ReturnType<typeof fileUploadBody>,
      path: { user?: string; email?: string } = {},
    ) => {
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/${encodeURIComponent(path.user ?? who.name)}/${encodeURIComponent(path.email ?? who.email)}`,
        headers: { ...bearer(who.token), ...body.headers },
        payload: body.payload,
      });
      return { status: reply.statusCode, body: reply.json() as UploadReply };
    };

    const datasetFiles = (owner: Account) => {
      const dir = path.join(stack.config.dataDir, 'datasets', String(owner.id));
      return existsSync(dir) ? readdirSync(dir) : [];
    };

    const removeAll = async (who: Account) => {
      const list = await stack.app.inject({ url: '/api/datasets', headers: bearer(who.token) });
      for (const d of (list.json() as { data: { datasets: { filename: string }[] } }).data.datasets) {
        await stack.app.inject({
          method: 'DELETE',
          url: `/api/datasets/${d.filename}`,
          headers: bearer(who.token),
        });
      }
    };

    it('stores an uploaded CSV and answers its stored name, download URL, rows and columns', async () => {
      const text = csvOf(20);
      const { status, body } = await upload(alice, fileUploadBody(text, { filename: 'my sales.csv' }));
      expect(status).toBe(201);
      expect(body).toMatchObject({
        success: true,
        rows: 20,
        dropped_rows: 0,
        columns: ['Day', 'Sales'],
        size_bytes: text.length,
      });
      expect(body.filename).toMatch(/^[a-f0-9]{32}\.csv$/);
      expect(body.url).toBe(`/api/download/${body.filename}/alice/alice%40example.com`);
      const stored = path.join(stack.config.dataDir, 'datasets', String(alice.id), body.filename);
      expect(readFileSync(stored, 'utf8')).toBe(text);

      // The owner downloads it by the URL (name in the path) and by id.
      for (const url of [
        body.url,
        `/api/download/${body.filename}/${alice.id}/${encodeURIComponent(alice.email)}`,
      ]) {
        const reply = await stack.app.inject({ url, headers: bearer(alice.token) });
        expect(reply.statusCode, url).toBe(200);
        expect(reply.headers['content-type']).toMatch(/^text\/csv/);
        expect(reply.headers['content-disposition']).toBe(
          `attachment; filename="my sales.csv"; filename*=UTF-8''my%20sales.csv`,
        );
        expect(reply.body).toBe(text);
      }
      await removeAll(alice);
    });

    it('keeps an upload with rows whose value count differs, counting them as dropped (the shared row rule)', async () => {
      const text = 'Day,Sales\n1,2\n\n3\n4,5,6\n7,8\n';
      const { status, body } = await upload(alice, fileUploadBody(text));
      expect(status).toBe(201);
      expect(body).toMatchObject({ rows: 2, dropped_rows: 2, columns: ['Day', 'Sales'] });
      // Every row dropped: refused in the spec's words.
      const none = await upload(alice, fileUploadBody('Day,Sales\n1\n2,3,4\n'));
      expect(none.status).toBe(400);
      expect(none.body.message).toBe(
        "Error uploading file. No data row has the header's 2 values: all 2 rows were dropped.",
      );
      await removeAll(alice);
    });

    it("serves an upload to its owner and admins only: another user's path or file is not found", async () => {
      const { body } = await upload(alice, fileUploadBody(csvOf(3)));
      const get = (url: string, token: string) => stack.app.inject({ url, headers: bearer(token) });
      // Bob with Alice's path, and Bob with his own path: both 404, like a file that does not exist.
      expect((await get(body.url, bob.token)).statusCode).toBe(404);
      const bobs = `/api/download/${body.filename}/bob/${encodeURIComponent(bob.email)}`;
      expect((await get(bobs, bob.token)).json()).toEqual({ success: false, detail: 'Not found' });
      // Alice with a path that names someone else.
      expect(
        (await get(`/api/download/${body.filename}/bob/${encodeURIComponent(alice.email)}`, alice.token))
          .statusCode,
      ).toBe(404);
      // An admin may read it.
      expect((await get(body.url, stack.adminToken)).statusCode).toBe(200);
      // Anonymous: 401.
      expect((await stack.app.inject({ url: body.url })).statusCode).toBe(401);
      await removeAll(alice);
    });

    it('accepts uploads only under the signed-in user (name or id, and e-mail)', async () => {
      const csv = fileUploadBody(csvOf(2));
      expect((await upload(alice, csv, { user: 'bob', email: bob.email })).status).toBe(404);
      expect((await upload(alice, csv, { user: 'alice', email: bob.email })).status).toBe(404);
      expect((await upload(alice, csv, { user: String(bob.id) })).status).toBe(404);
      expect(
        (
          await upload(alice, fileUploadBody(csvOf(2)), {
            user: String(alice.id),
            email: 'ALICE@example.com',
          })
        ).status,
      ).toBe(201);
      const anonymous = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/alice/${encodeURIComponent(alice.email)}`,
        ...csv,
      });
      expect(anonymous.statusCode).toBe(401);
      await removeAll(alice);
    });

    it("refuses bad files with 'Error uploading file. {detail}' and keeps nothing of them", async () => {
      const cases: [ReturnType<typeof fileUploadBody>, number, string][] = [
        [fileUploadBody(''), 400, 'The file is empty.'],
        [
          fileUploadBody(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), {
            filename: 'data.csv',
          }),
          400,
          'The file is a PNG image, not CSV text.',
        ],
        [
          fileUploadBody(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 6, 0, 8, 0]), {
            filename: 'book.xlsx',
          }),
          400,
          'The file is a ZIP archive (an Excel .xlsx workbook is one), not CSV text.',
        ],
        [
          fileUploadBody(Buffer.from('Stadt,Größe\nKöln,1\n', 'latin1')),
          400,
          'The file is not UTF-8 text: save it as "CSV UTF-8" and upload it again.',
        ],
        [
          fileUploadBody('1,2,3\n4,5,6\n'),
          400,
          'The file has no header row: its first row holds only numbers; add a first row that names the columns.',
        ],
        [fileUploadBody('Day,Sales\n'), 400, 'The file has a header row but no data rows.'],
        [fileUploadBody(csvOf(600)), 413, 'The file is larger than the limit of 4 KB.'],
        [
          fileUploadBody(csvOf(2), { field: 'dataset' }),
          400,
          'Send one CSV file as multipart/form-data, in the field "file".',
        ],
      ];
      for (const [body, status, detail] of cases) {
        const reply = await upload(alice, body);
        expect(reply.status, detail).toBe(status);
        expect(reply.body).toEqual({ success: false, message: `Error uploading file. ${detail}`, detail });
      }
      // Not multipart at all.
      const json = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/alice/${encodeURIComponent(alice.email)}`,
        headers: bearer(alice.token),
        payload: { file: 'Day,Sales\n1,2\n' },
      });
      expect(json.statusCode).toBe(400);
      expect(json.json().message).toBe(
        'Error uploading file. Send one CSV file as multipart/form-data, in the field "file".',
      );
      // A body whose parts do not use the boundary its Content-Type names (a broken client).
      for (const payload of [csvOf(2), '']) {
        const broken = fileUploadBody(payload);
        const mismatched = await upload(alice, {
          ...broken,
          headers: { 'content-type': 'multipart/form-data; boundary=----not-the-one-used' },
        });
        expect(mismatched.status).toBe(400);
        expect(mismatched.body).toMatchObject({ success: false, detail: MALFORMED_MULTIPART });
      }
      expect(datasetFiles(alice)).toEqual([]);
      const { rows } = await stack.services.db.query('select 1 from datasets where owner_id = $1', [
        alice.id,
      ]);
      expect(rows).toEqual([]);
    });

    it('counts stored files against the per-user quota, says so when full, and frees room on delete', async () => {
      const three = csvOf(450); // 3,445 bytes: two fit in 8 KB, a third does not
      const first = await upload(bob, fileUploadBody(three));
      const second = await upload(bob, fileUploadBody(three));
      expect([first.status, second.status]).toEqual([201, 201]);
      const full = await upload(bob, fileUploadBody(three));
      expect(full.status).toBe(413);
      expect(full.body.message).toBe(
        'Error uploading file. Your dataset storage is full (7 KB of 8 KB used). Delete a dataset or ask an admin.',
      );
      expect(datasetFiles(bob).sort()).toEqual([first.body.filename, second.body.filename].sort());
      // Alice's storage is her own.
      expect((await upload(alice, fileUploadBody(three))).status).toBe(201);

      const listed = await stack.app.inject({ url: '/api/datasets', headers: bearer(bob.token) });
      expect(listed.json().data).toMatchObject({ used_bytes: 2 * three.length, quota_bytes: 8192 });
      expect(listed.json().data.datasets.map((d: { filename: string }) => d.filename)).toEqual([
        second.body.filename,
        first.body.filename,
      ]);

      // Someone else cannot delete it; the owner can, and the room is back.
      const del = (token: string) =>
        stack.app.inject({
          method: 'DELETE',
          url: `/api/datasets/${first.body.filename}`,
          headers: bearer(token),
        });
      expect((await del(alice.token)).statusCode).toBe(404);
      expect((await del(bob.token)).statusCode).toBe(200);
      expect(datasetFiles(bob)).toEqual([second.body.filename]);
      expect((await upload(bob, fileUploadBody(three))).status).toBe(201);
      await removeAll(alice);
      await removeAll(bob);
    });

    it('over a real connection, refuses a too-large upload while it streams and keeps serving', async () => {
      const address = await stack.app.listen({ port: 0, host: '127.0.0.1' });
      const send = (text: string) => {
        const form = new FormData();
        form.append('file', new Blob([text], { type: 'text/csv' }), 'big.csv');
        return fetch(`${address}/api/upload/alice/${encodeURIComponent(alice.email)}`, {
          method: 'POST',
          headers: bearer(alice.token),
          body: form,
        });
      };
      const big = await send(csvOf(5000)); // about 44 KB, over the 4 KB limit
      expect(big.status).toBe(413);
      expect(await big.json()).toMatchObject({
        message: 'Error uploading file. The file is larger than the limit of 4 KB.',
      });
      const ok = await send(csvOf(5));
      expect(ok.status).toBe(201);
      expect(((await ok.json()) as UploadReply).rows).toBe(5);
      expect(datasetFiles(alice).filter((f) => f.endsWith('.part'))).toEqual([]);
      await removeAll(alice);
    });

    it('sweeps temporary files a crash left behind (older than an hour) on the next upload', async () => {
      const dir = path.join(stack.config.dataDir, 'datasets', String(alice.id));
      mkdirSync(dir, { recursive: true });
      const stale = path.join(dir, '.0123.csv.part');
      const fresh = path.join(dir, '.4567.csv.part');
      writeFileSync(stale, 'Day,Sales\n1,');
      writeFileSync(fresh, 'Day,Sales\n1,');
      const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
      utimesSync(stale, twoHoursAgo, twoHoursAgo);
      expect((await upload(alice, fileUploadBody(csvOf(2)))).status).toBe(201);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true); // possibly an upload under way
      rmSync(fresh);
      await removeAll(alice);
    });

    it('counts concurrent uploads one after the other against the quota', async () => {
      const dave = await account(`dave-${database}@example.com`);
      const replies = await Promise.all([1, 2, 3].map(() => upload(dave, fileUploadBody(csvOf(450)))));
      expect(replies.map((r) => r.status).sort()).toEqual([201, 201, 413]);
      expect(datasetFiles(dave)).toHaveLength(2);
      const { rows } = await stack.services.db.query<{ used: number }>(
        'select sum(size_bytes)::int as used from datasets where owner_id = $1',
        [dave.id],
      );
      expect(rows[0]!.used).toBeLessThanOrEqual(8192);
    });

    it('limits one account to 60 upload attempts an hour (429 with Retry-After)', async () => {
      const carol = await account(`carol-${database}@example.com`);
      for (let i = 0; i < 60; i++) expect((await upload(carol, fileUploadBody(''))).status).toBe(400);
      const valid = fileUploadBody(csvOf(2));
      const reply = await stack.app.inject({
        method: 'POST',
        url: `/api/upload/${carol.name}/${encodeURIComponent(carol.email)}`,
        headers: { ...bearer(carol.token), ...valid.headers },
        payload: valid.payload,
      });
      expect(reply.statusCode).toBe(429);
      expect(Number(reply.headers['retry-after'])).toBeGreaterThan(0);
      // Another account is not held back.
      expect((await upload(bob, fileUploadBody(''))).status).toBe(400);
    });

    describe('DatasetResolver', () => {
      let server: http.Server;
      let base: string;
      const remoteCsv = 'Time,Amount,Class\n1,2.5,0\n2,3.5,1\n3,1.0,0\n';

      beforeAll(async () => {
        server = http.createServer((request, response) => {
          if (request.url === '/fraud.csv') response.writeHead(200).end(remoteCsv);
          else response.writeHead(404).end();
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      });
      afterAll(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });

      const owner = (who: Account) => ({ id: who.id });

      it('resolves a shipped sample to its file, facts and label (synthetic said so)', async () => {
        const { resolver } = stack.services.datasets;
        const stock = await resolver.resolve(owner(alice), 'samples/apple_google_stock.csv');
        const sample = stack.services.samples.find('apple_google_stock.csv')!;
        expect(stock).toEqual({
          path: stack.services.samples.pathOf('apple_google_stock.csv'),
          // Every machine has the shipped samples with the code: no file store key.
          key: null,
          sha256: sample.sha256,
          rowCount: sample.rows,
          columns: sample.columns,
          label: 'Apple and Google stock price',
          synthetic: false,
          source: 'sample',
        });
        const fraud = await resolver.resolve(owner(alice), '/samples/credit_card_fraud_synthetic.csv');
        expect(fraud).toMatchObject({ synthetic: true, label: 'Credit Card Fraud Detection (synthetic)' });
        // The download route's form of a sample resolves to the sample too.
        const viaDownload = await resolver.resolve(
          owner(alice),
          `/api/download/product_demand.csv/alice/${alice.email}`,
        );
        expect(viaDownload).toMatchObject({ source: 'sample', rowCount: 1001 });
        await expect(resolver.resolve(owner(alice), 'samples/nope.csv')).rejects.toThrow(
          'There is no sample dataset named "nope.csv".',
        );
      });

      it("resolves the owner's upload by its URL (with or without /api), and refuses another user's", async () => {
        const { resolver } = stack.services.datasets;
        const { body } = await upload(alice, fileUploadBody(csvOf(7), { filename: 'weekly.csv' }));
        // Also as a full link to this server (PUBLIC_URL), which is never fetched over the network.
        const full = `${stack.config.publicUrl}${body.url}`;
        for (const url of [
          body.url,
          body.url.replace(/^\/api\//, ''),
          body.url.replace(/^\/api/, ''),
          full,
        ]) {
          const resolved = await resolver.resolve(owner(alice), url);
          expect(resolved, url).toMatchObject({
            rowCount: 7,
            columns: ['Day', 'Sales'],
            label: 'weekly.csv',
            synthetic: false,
            source: 'upload',
            // What a worker on another machine reads it by: its path under DATA_DIR.
            key: `datasets/${alice.id}/${body.filename}`,
          });
          expect(readFileSync(resolved.path, 'utf8')).toBe(csvOf(7));
        }
        const error = await resolver.resolve(owner(bob), body.url).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DatasetRefusal);
        expect((error as DatasetRefusal).message).toBe(
          `The uploaded dataset "${body.filename}" was not found.`,
        );
        expect((error as DatasetRefusal).status).toBe(404);
        await removeAll(alice);
        await expect(resolver.resolve(owner(alice), body.url)).rejects.toThrow(/was not found/);
      });

      it('fetches an http(s) URL (checked as an upload is) and refuses loopback with the default policy', async () => {
        // The stack's own resolver never fetches from this machine.
        await expect(
          stack.services.datasets.resolver.resolve(owner(alice), `${base}/fraud.csv`),
        ).rejects.toThrow(
          'The dataset URL points to a loopback address (127.0.0.1); the server does not fetch from it.',
        );
        // The same resolver with a fetcher that lets the test server through.
        const fetcher = new UrlFetcher({
          dataDir: stack.config.dataDir,
          maxBytes: 4096,
          timeoutMs: 2000,
          allowAddress: (address) => address === '127.0.0.1',
        });
        const resolver = new DatasetResolver(stack.services.samples, stack.services.datasets.store, fetcher);
        const resolved = await resolver.resolve(owner(alice), `${base}/fraud.csv`);
        expect(resolved).toMatchObject({
          rowCount: 3,
          columns: ['Time', 'Amount', 'Class'],
          label: `${base}/fraud.csv`,
          synthetic: false,
          source: 'url',
        });
        expect(resolved.path).toBe(path.join(stack.config.dataDir, 'url-cache', `${resolved.sha256}.csv`));
        expect(resolved.key).toBe(`url-cache/${resolved.sha256}.csv`);
        await expect(resolver.resolve(owner(alice), `${base}/gone.csv`)).rejects.toThrow(
          'The dataset URL answered HTTP 404, not the file.',
        );
      });

      it('refuses anything else in plain words', async () => {
        const { resolver } = stack.services.datasets;
        await expect(resolver.resolve(owner(alice), '')).rejects.toThrow(
          'The dataset must be a sample dataset, an uploaded file or an http(s) URL (none is set).',
        );
        await expect(resolver.resolve(owner(alice), '/etc/passwd')).rejects.toThrow(
          'The dataset must be a sample dataset, an uploaded file or an http(s) URL (got "/etc/passwd").',
        );
        await expect(resolver.resolve(owner(alice), 'samples/../package.json')).rejects.toThrow(
          DatasetRefusal,
        );
        await expect(resolver.resolve(owner(alice), 'ftp://example.com/x.csv')).rejects.toThrow(
          DatasetRefusal,
        );
      });
    });
  });
