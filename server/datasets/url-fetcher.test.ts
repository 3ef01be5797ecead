import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetRefusal } from './dataset-refusal';
import {
  blockedAddressReason,
  UrlFetcher,
  UrlUnreachable,
  type ResolvedAddress,
  type UrlFetcherOptions,
} from './url-fetcher';

const CSV = 'Date,Close\n2024-01-02,10.5\n2024-01-03,11\n';

describe('the address policy', () => {
  it('refuses loopback, private, shared, link-local, unspecified, multicast and reserved IPv4', () => {
    const blocked: [string, string][] = [
      ['127.0.0.1', 'a loopback address'],
      ['127.8.9.10', 'a loopback address'],
      ['10.0.0.1', 'a private address'],
      ['172.16.5.4', 'a private address'],
      ['172.31.255.255', 'a private address'],
      ['192.168.1.1', 'a private address'],
      ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
      ['169.254.169.254', 'a link-local address'],
      ['0.0.0.0', 'an unspecified address'],
      ['224.0.0.1', 'a multicast address'],
      ['255.255.255.255', 'a reserved address'],
    ];
    for (const [address, reason] of blocked) expect(blockedAddressReason(address), address).toBe(reason);
  });

  it('refuses the same in IPv6, including IPv4 addresses carried in IPv6 ones', () => {
    const blocked: [string, string][] = [
      ['::1', 'a loopback address'],
      ['::', 'an unspecified address'],
      ['fd12:3456::1', 'a private address'],
      ['fc00::1', 'a private address'],
      ['fe80::1%eth0', 'a link-local address'],
      ['ff02::1', 'a multicast address'],
      ['::ffff:10.0.0.1', 'a private address'],
      ['::ffff:127.0.0.1', 'a loopback address'],
      ['::ffff:7f00:1', 'a loopback address'], // the same, written in hex
      ['::ffff:169.254.169.254', 'a link-local address'],
      ['64:ff9b::a00:1', 'a private address'], // NAT64 of 10.0.0.1
      ['::192.168.0.1', 'a private address'], // IPv4-compatible
    ];
    for (const [address, reason] of blocked) expect(blockedAddressReason(address), address).toBe(reason);
  });

  it('lets public addresses through', () => {
    for (const address of [
      '8.8.8.8',
      '172.32.0.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      expect(blockedAddressReason(address), address).toBeNull();
    }
  });
});

describe('the URL fetcher', () => {
  let server: http.Server;
  let base: string;
  let port: number;
  let dataDir: string;
  const hits: string[] = [];

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'qml-url-fetch-'));
    server = http.createServer((request, response) => {
      const url = request.url ?? '/';
      hits.push(url);
      const redirect = (to: string) => response.writeHead(302, { location: to }).end();
      if (url === '/data.csv') response.writeHead(200, { 'content-type': 'text/csv' }).end(CSV);
      else if (url === '/to-data') redirect('/data.csv');
      else if (url === '/ragged.csv') response.writeHead(200).end('a,b\n1,2\n3\n4,5,6\n7,8\n');
      else if (url === '/to-private') redirect('http://10.0.0.1/data.csv');
      else if (url === '/to-metadata') redirect('http://169.254.169.254/latest/meta-data/');
      else if (url === '/to-mapped') redirect(`http://[::ffff:127.0.0.1]:${port}/data.csv`);
      else if (url === '/to-evil-name') redirect(`http://evil.test:${port}/data.csv`);
      else if (url === '/to-file') redirect('file:///etc/passwd');
      else if (url.startsWith('/loop')) redirect(`/loop${url.length}`);
      else if (url === '/big') {
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write('a,b\n');
        const row = Buffer.from('1,2\n'.repeat(256));
        let sent = 0;
        const more = () => {
          while (sent < 64 && response.write(row)) sent++;
          if (sent < 64) response.once('drain', more);
          else response.end();
        };
        more();
      } else if (url === '/big-declared') {
        response.writeHead(200, { 'content-length': String(10 * 1024 * 1024) }).end('a,b\n1,2\n');
      } else if (url === '/slow') {
        response.writeHead(200, { 'content-type': 'text/csv' });
        response.write('a,b\n'); // then nothing more
      } else if (url === '/trickle') {
        // A body delimited by the connection's end (no length, not chunked): one row every 50 ms, so a
        // cut connection looks like a finished body unless the fetcher knows its time ran out.
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
      } else if (url === '/png') {
        response.writeHead(200).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
      } else response.writeHead(404).end('no');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A fetcher that lets through exactly 127.0.0.1 (the test server); names resolve from the map. */
  const fetcher = (options: Partial<UrlFetcherOptions> = {}, names: Record<string, string[]> = {}) =>
    new UrlFetcher({
      dataDir,
      maxBytes: 4096,
      timeoutMs: 2000,
      allowAddress: (address) => address === '127.0.0.1',
      resolve: async (hostname): Promise<ResolvedAddress[]> =>
        (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ...options,
    });

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatasetRefusal);
    return (error as DatasetRefusal).message;
  };

  it('fetches a CSV into DATA_DIR/url-cache/<sha256>.csv with its rows and columns', async () => {
    const got = await fetcher().fetch(`${base}/data.csv`);
    const sha256 = createHash('sha256').update(CSV).digest('hex');
    expect(got).toMatchObject({ rows: 2, columns: ['Date', 'Close'], sha256, sizeBytes: CSV.length });
    expect(got.path).toBe(path.join(dataDir, 'url-cache', `${sha256}.csv`));
    expect(readFileSync(got.path, 'utf8')).toBe(CSV);
  });

  it('follows a redirect to an allowed address', async () => {
    const got = await fetcher().fetch(`${base}/to-data`);
    expect(got.rows).toBe(2);
    expect(got.finalUrl).toBe(`${base}/data.csv`);
  });

  it('connects to the address it checked, not to a second lookup of the name', async () => {
    // good.test resolves (through the injected resolver only) to the test server.
    const got = await fetcher({}, { 'good.test': ['127.0.0.1'] }).fetch(`http://good.test:${port}/data.csv`);
    expect(got.rows).toBe(2);
  });

  it('refuses loopback, private and link-local addresses by default (no test exception)', async () => {
    const strict = new UrlFetcher({ dataDir, maxBytes: 4096, timeoutMs: 2000 });
    expect(await refusal(strict.fetch(`${base}/data.csv`))).toBe(
      'The dataset URL points to a loopback address (127.0.0.1); the server does not fetch from it.',
    );
    expect(await refusal(strict.fetch('http://10.0.0.1/data.csv'))).toMatch(
      /a private address \(10\.0\.0\.1\)/,
    );
    expect(await refusal(strict.fetch('http://169.254.169.254/latest/'))).toMatch(/a link-local address/);
    expect(await refusal(strict.fetch('http://[::1]/data.csv'))).toMatch(/a loopback address \(::1\)/);
    expect(await refusal(strict.fetch('http://[::ffff:192.168.0.1]/x.csv'))).toMatch(/a private address/);
    // The system resolver: localhost is loopback however it resolves.
    expect(await refusal(strict.fetch('http://localhost/data.csv'))).toMatch(/a loopback address/);
  });

  it('refuses a name that resolves to a private address, even beside a public one', async () => {
    const names = { 'evil.test': ['10.1.2.3'], 'mixed.test': ['93.184.216.34', '192.168.7.7'] };
    expect(await refusal(fetcher({}, names).fetch('http://evil.test/data.csv'))).toMatch(
      /a private address \(10\.1\.2\.3\)/,
    );
    expect(await refusal(fetcher({}, names).fetch('http://mixed.test/data.csv'))).toMatch(
      /a private address \(192\.168\.7\.7\)/,
    );
    const v6 = { 'ula.test': ['fd00::7'], 'mapped.test': ['::ffff:10.0.0.8'] };
    expect(await refusal(fetcher({}, v6).fetch('http://ula.test/data.csv'))).toMatch(
      /a private address \(fd00::7\)/,
    );
    expect(await refusal(fetcher({}, v6).fetch('http://mapped.test/data.csv'))).toMatch(
      /a private address \(::ffff:10\.0\.0\.8\)/,
    );
    expect(await refusal(fetcher({}, names).fetch('http://nowhere.test/data.csv'))).toBe(
      "The dataset URL's host nowhere.test could not be found.",
    );
  });

  it('checks every redirect: to a private, metadata, mapped-loopback or private-resolving address is refused', async () => {
    const names = { 'evil.test': ['10.9.9.9'] };
    const before = hits.length;
    expect(await refusal(fetcher({}, names).fetch(`${base}/to-private`))).toMatch(
      /a private address \(10\.0\.0\.1\)/,
    );
    expect(await refusal(fetcher({}, names).fetch(`${base}/to-metadata`))).toMatch(/a link-local address/);
    expect(await refusal(fetcher({}, names).fetch(`${base}/to-mapped`))).toMatch(
      /a loopback address \(::ffff:7f00:1\)/, // the URL parser writes it in hex
    );
    expect(await refusal(fetcher({}, names).fetch(`${base}/to-evil-name`))).toMatch(
      /a private address \(10\.9\.9\.9\)/,
    );
    expect(await refusal(fetcher({}, names).fetch(`${base}/to-file`))).toBe(
      'The dataset URL must start with http:// or https:// (not file://).',
    );
    // Only the redirecting server was asked; the refused targets never were.
    expect(hits.slice(before)).toEqual([
      '/to-private',
      '/to-metadata',
      '/to-mapped',
      '/to-evil-name',
      '/to-file',
    ]);
  });

  it('stops after 5 redirects', async () => {
    expect(await refusal(fetcher().fetch(`${base}/loop`))).toBe(
      'The dataset URL redirects more than 5 times.',
    );
  });

  it('refuses other schemes, credentials and non-2xx answers', async () => {
    expect(await refusal(fetcher().fetch('ftp://example.com/data.csv'))).toMatch(/must start with http/);
    expect(await refusal(fetcher().fetch(`http://user:pw@127.0.0.1:${port}/data.csv`))).toMatch(
      /user name or password/,
    );
    expect(await refusal(fetcher().fetch(`${base}/missing`))).toBe(
      'The dataset URL answered HTTP 404, not the file.',
    );
  });

  it('enforces the size limit, declared or streamed, and leaves no partial file', async () => {
    expect(await refusal(fetcher().fetch(`${base}/big-declared`))).toBe(
      'The file at the dataset URL is larger than the limit of 4 KB.',
    );
    expect(await refusal(fetcher().fetch(`${base}/big`))).toBe(
      'The file at the dataset URL is larger than the limit of 4 KB.',
    );
    const cache = path.join(dataDir, 'url-cache');
    expect(existsSync(cache) ? readdirSync(cache).filter((f) => f.endsWith('.part')) : []).toEqual([]);
  });

  it('enforces the time limit', async () => {
    const started = Date.now();
    expect(await refusal(fetcher({ timeoutMs: 300 }).fetch(`${base}/slow`))).toBe(
      'The dataset URL did not deliver the file within 0.3 s.',
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('past the time limit keeps nothing of a body that was still arriving, and says it was too slow', async () => {
    const url = `${base}/trickle`;
    const slow = fetcher({ timeoutMs: 600 });
    const error = await slow.fetch(url).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlUnreachable);
    expect((error as UrlUnreachable).message).toBe('The dataset URL did not deliver the file within 0.6 s.');
    const cache = path.join(dataDir, 'url-cache');
    // No partial file, and no cached file of the rows that came in time (other tests' files stay).
    const leftovers = readdirSync(cache).filter(
      (name) =>
        name.endsWith('.part') ||
        (name.endsWith('.csv') && readFileSync(path.join(cache, name), 'utf8').startsWith('Day,Sales')),
    );
    expect(leftovers).toEqual([]);
    expect(await slow.cachedFacts(url)).toBeNull();
    // The download path (an image fetched for prediction) keeps no partial file either.
    const destination = path.join(dataDir, 'trickle.bin');
    expect(await refusal(slow.download(url, destination))).toBe(
      'The dataset URL did not deliver the file within 0.6 s.',
    );
    expect(existsSync(destination)).toBe(false);
  });

  it('checks the content as an upload is checked', async () => {
    expect(await refusal(fetcher().fetch(`${base}/png`))).toBe(
      'The file at the dataset URL is not usable: The file is a PNG image, not CSV text.',
    );
  });

  it('remembers what the last fetch of a URL found, until its file leaves the cache', async () => {
    const url = `${base}/ragged.csv`;
    const f = fetcher();
    expect(await f.cachedFacts(url)).toBeNull();
    const got = await f.fetch(url);
    expect(got).toMatchObject({ rows: 2, droppedRows: 2, columns: ['a', 'b'] });
    expect(await f.cachedFacts(url)).toMatchObject({
      url,
      sha256: got.sha256,
      rows: 2,
      droppedRows: 2,
      columns: ['a', 'b'],
    });
    expect(await f.cachedFacts(`${url}?other`)).toBeNull();
    rmSync(got.path);
    expect(await f.cachedFacts(url)).toBeNull();
  });

  it('keeps the cache bounded by age and total size, never removing an entry younger than an hour', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qml-url-cache-'));
    try {
      const cache = path.join(dir, 'url-cache');
      mkdirSync(path.join(cache, 'urls'), { recursive: true });
      const now = Date.now();
      const hour = 60 * 60 * 1000;
      /** A cached CSV of `size` bytes written `ageHours` ago, with a URL entry naming it. */
      const entry = (name: string, size: number, ageHours: number) => {
        const sha = createHash('sha256').update(name).digest('hex');
        const file = path.join(cache, `${sha}.csv`);
        writeFileSync(file, 'x'.repeat(size));
        const index = path.join(cache, 'urls', `${sha}.json`);
        writeFileSync(index, JSON.stringify({ url: name, sha256: sha }));
        const when = new Date(now - ageHours * hour);
        utimesSync(file, when, when);
        utimesSync(index, when, when);
        return { file, index };
      };
      const ancient = entry('ancient', 100, 24 * 8); // older than a week
      const old = entry('old', 3000, 5);
      const middle = entry('middle', 3000, 3);
      const fresh = entry('fresh', 3000, 0.5);
      const freshToo = entry('fresh too', 3000, 0.1);
      // 12,000 bytes against a bound of 5,000: the two old ones go; the two fresh ones stay even so.
      await fetcher({ dataDir: dir, cacheMaxBytes: 5000 }).cleanCache(now);
      const exists = (e: { file: string; index: string }) => [existsSync(e.file), existsSync(e.index)];
      expect(exists(ancient)).toEqual([false, false]);
      expect(exists(old)).toEqual([false, false]);
      expect(exists(middle)).toEqual([false, false]);
      expect(exists(fresh)).toEqual([true, true]);
      expect(exists(freshToo)).toEqual([true, true]);
      // Under the bound nothing young is touched; the default bound is 10 × the size limit.
      await fetcher({ dataDir: dir }).cleanCache(now);
      expect(exists(fresh)).toEqual([true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
