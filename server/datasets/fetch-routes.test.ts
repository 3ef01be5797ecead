import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { UrlFetcher } from './url-fetcher';

const CSV = 'Date,Close\n2024-01-02,10.5\n2024-01-03,11\n';

describe('GET /api/datasets/fetch', () => {
  let stack: TestStack;
  /** The same services, but a fetcher that lets the local test server (127.0.0.1) through. */
  let local: FastifyInstance;
  let server: http.Server;
  let base: string;
  let token: string;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/data.csv') response.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
      else if (request.url === '/moved') response.writeHead(302, { location: '/data.csv' }).end();
      else if (request.url === '/big.csv') response.writeHead(200).end('a,b\n' + '1,2\n'.repeat(2000));
      else if (request.url === '/trickle.csv') {
        // 100 rows over 5 s, the body ended by the connection's end (no length, not chunked).
        response.useChunkedEncodingByDefault = false;
        response.writeHead(200, { 'content-type': 'text/csv', connection: 'close' });
        response.write('Day,Sales\n');
        let row = 0;
        const timer = setInterval(() => {
          if (response.destroyed || row >= 100) {
            clearInterval(timer);
            response.end();
          } else response.write(`${++row},${row * 2}\n`);
        }, 50);
      } else if (request.url === '/picture')
        response.writeHead(200).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      else response.writeHead(404).end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // UPLOAD_MAX_BYTES 4 KB: the fetch is capped like an upload.
    stack = await startStack({ database: 'pglite', queue: 'in-process' }, { UPLOAD_MAX_BYTES: '4096' });
    token = await stack.userToken('reader@example.com');
    const browserFetcher = new UrlFetcher({
      dataDir: stack.config.dataDir,
      maxBytes: 4096,
      timeoutMs: 2000,
      allowAddress: (address) => address === '127.0.0.1',
    });
    local = await buildApp(
      { ...stack.services, datasets: { ...stack.services.datasets, browserFetcher } },
      { serveWebApp: false },
    );
  });
  afterAll(async () => {
    await local?.close();
    await stack?.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (app: FastifyInstance, url: string | null, auth = true) =>
    app.inject({
      url: url === null ? '/api/datasets/fetch' : `/api/datasets/fetch?url=${encodeURIComponent(url)}`,
      headers: auth ? bearer(token) : {},
    });

  it('answers the CSV at a public URL as text/csv, following redirects', async () => {
    for (const url of [`${base}/data.csv`, `${base}/moved`]) {
      const reply = await get(local, url);
      expect(reply.statusCode, url).toBe(200);
      expect(reply.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(reply.body).toBe(CSV);
    }
    // The shared cache now knows the URL's facts (a save-time check may use them).
    expect(await stack.services.datasets.fetcher.cachedFacts(`${base}/data.csv`)).toMatchObject({
      rows: 2,
      droppedRows: 0,
      columns: ['Date', 'Close'],
    });
  });

  it('is for signed-in users only', async () => {
    const reply = await get(local, `${base}/data.csv`, false);
    expect(reply.statusCode).toBe(401);
  });

  it('refuses a missing or malformed url with 400 naming the field url', async () => {
    const missing = await get(local, null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ success: false, errors: [{ field: '/url' }] });
    for (const [url, detail] of [
      ['not a url', 'The dataset URL is not a valid address.'],
      ['ftp://example.com/a.csv', 'The dataset URL must start with http:// or https:// (not ftp://).'],
      ['https://user:secret@example.com/a.csv', 'The dataset URL may not carry a user name or password.'],
    ]) {
      const reply = await get(local, url!);
      expect(reply.statusCode, url).toBe(400);
      expect(reply.json(), url).toEqual({
        success: false,
        detail,
        errors: [{ field: '/url', message: detail }],
      });
    }
  });

  it('keeps refusing loopback and private addresses in the real configuration', async () => {
    for (const [url, address] of [
      [`${base}/data.csv`, '127.0.0.1'],
      ['http://10.1.2.3/data.csv', '10.1.2.3'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ]) {
      const reply = await get(stack.app, url!);
      expect(reply.statusCode, url).toBe(400);
      expect((reply.json() as { detail: string }).detail, url).toMatch(
        new RegExp(`^The dataset URL points to an? [a-z -]+ address \\(${address!.replace(/\./g, '\\.')}\\)`),
      );
    }
  });

  it('answers 502 past the time limit, not 200 with the rows that came in time', async () => {
    const slow = await get(local, `${base}/trickle.csv`);
    expect(slow.statusCode, slow.body).toBe(502);
    expect(slow.json()).toEqual({
      success: false,
      detail: 'The dataset URL did not deliver the file within 2 s.',
    });
  });

  it('answers 502 when the far server fails, 413 over the upload limit, 400 for a file that is not CSV', async () => {
    const gone = await get(local, `${base}/gone.csv`);
    expect(gone.statusCode).toBe(502);
    expect(gone.json()).toEqual({
      success: false,
      detail: 'The dataset URL answered HTTP 404, not the file.',
    });
    const big = await get(local, `${base}/big.csv`);
    expect(big.statusCode).toBe(413);
    expect((big.json() as { detail: string }).detail).toBe(
      'The file at the dataset URL is larger than the limit of 4 KB.',
    );
    const picture = await get(local, `${base}/picture`);
    expect(picture.statusCode).toBe(400);
    expect((picture.json() as { detail: string }).detail).toBe(
      'The file at the dataset URL is not usable: The file is a PNG image, not CSV text.',
    );
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await stack.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string; required?: boolean }[] } }>;
    };
    const route = doc.paths['/api/datasets/fetch']?.get;
    expect(route?.parameters).toContainEqual(
      expect.objectContaining({ name: 'url', in: 'query', required: true }),
    );
  });

  it('limits one account to 60 fetches an hour (429 with Retry-After)', async () => {
    const other = await stack.userToken('busy@example.com');
    const attempt = () => stack.app.inject({ url: '/api/datasets/fetch?url=x', headers: bearer(other) });
    for (let i = 0; i < 60; i++) expect((await attempt()).statusCode).toBe(400);
    const refused = await attempt();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});
