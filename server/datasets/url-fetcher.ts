// Fetches a dataset from an http(s) URL for a job (download(): any file as it is, e.g. a prediction
// image), safely: the host name is resolved once and every
// address it resolves to is checked against the blocked ranges (loopback, private, shared, link-local,
// unspecified, multicast, reserved, and IPv4 addresses inside IPv6 ones); the connection goes to the
// checked address (no second DNS lookup), redirects are followed by hand (at most 5, each checked the
// same way), and the body is size-limited, time-limited and inspected as an upload is. The file lands
// in DATA_DIR/url-cache/<sha256>.csv, and what was learnt of it under the URL asked for in
// DATA_DIR/url-cache/urls/<sha256 of the URL>.json (save-time checks read it without a fetch). The
// cache is bounded: each fetch first removes entries older than a week and, past a total size, the
// oldest ones (never one written within the last hour: a queued job may be about to read it). With a
// shared file store both files are published under the same keys (url-cache/...), so a worker or another
// server reads them; the bound applies to this machine's copies (the bucket's own expiry rule to the store's).

import { createHash, randomBytes } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InspectingStream, type CsvFacts } from './csv-inspection';
import { DatasetRefusal, formatMegabytes } from './dataset-refusal';
import { removeStalePartials } from './partial-files';
import { FileMissing, type FileStore } from '../storage/file-store';

export const MAX_REDIRECTS = 5;

/** The server at the URL did not deliver a file (no such host, no connection, an HTTP error, too slow). */
export class UrlUnreachable extends DatasetRefusal {
  override name = 'UrlUnreachable';
}

const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'an unspecified'],
  ['10.0.0.0', 8, 'a private'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'a loopback'],
  ['169.254.0.0', 16, 'a link-local'],
  ['172.16.0.0', 12, 'a private'],
  ['192.0.0.0', 24, 'a reserved'],
  ['192.0.2.0', 24, 'a reserved'],
  ['192.168.0.0', 16, 'a private'],
  ['198.18.0.0', 15, 'a reserved'],
  ['198.51.100.0', 24, 'a reserved'],
  ['203.0.113.0', 24, 'a reserved'],
  ['224.0.0.0', 4, 'a multicast'],
  ['240.0.0.0', 4, 'a reserved'],
];

const BLOCKED_V6: [string, number, string][] = [
  ['::', 128, 'an unspecified'],
  ['::1', 128, 'a loopback'],
  ['fc00::', 7, 'a private'],
  ['fe80::', 10, 'a link-local'],
  ['fec0::', 10, 'a private'],
  ['ff00::', 8, 'a multicast'],
  ['2001:db8::', 32, 'a reserved'],
];

const lists = (() => {
  const v4 = BLOCKED_V4.map(([net, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, 'ipv4');
    return { list, kind };
  });
  const v6 = BLOCKED_V6.map(([net, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, 'ipv6');
    return { list, kind };
  });
  return { v4, v6 };
})();

/** The IPv6 address as 8 groups of 16 bits, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const tail = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (tail) {
    const parts = tail[1]!.split('.').map(Number);
    text =
      text.slice(0, -tail[1]!.length) +
      `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [left, right, ...more] = text.split('::');
  if (more.length > 0) return null;
  const head = left ? left.split(':') : [];
  const rest = right !== undefined ? (right ? right.split(':') : []) : null;
  const groups = rest === null ? head : [...head, ...Array(8 - head.length - rest.length).fill('0'), ...rest];
  if (groups.length !== 8) return null;
  return groups.map((g) => parseInt(g, 16));
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64), if any. */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  const carries =
    (zeros(5) && (g[5] === 0xffff || g[5] === 0)) || // ::ffff:0:0/96 and ::/96
    (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)); // 64:ff9b::/96
  if (!carries || (g[5] === 0 && g[6] === 0 && g[7]! <= 1)) return null; // :: and ::1 are themselves
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
}

/**
 * Why an address may not be fetched from ("a private address"), or null when it may. The default
 * policy of the fetcher; IPv4 addresses inside IPv6 ones are judged as the IPv4 address.
 */
export function blockedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) {
    const hit = lists.v4.find(({ list }) => list.check(address, 'ipv4'));
    return hit ? `${hit.kind} address` : address === '255.255.255.255' ? 'a broadcast address' : null;
  }
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return blockedAddressReason(inner);
    const hit = lists.v6.find(({ list }) => list.check(address, 'ipv6'));
    return hit ? `${hit.kind} address` : null;
  }
  return 'not an IP address';
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface UrlFetcherOptions {
  /** DATA_DIR: files land in DATA_DIR/url-cache. */
  dataDir: string;
  /** URL_FETCH_MAX_BYTES */
  maxBytes: number;
  /** URL_FETCH_TIMEOUT_MS: the whole fetch, redirects included. */
  timeoutMs: number;
  /** Name resolution (default: the system resolver, every address). Tests map names to addresses. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /**
   * FOR TESTS ONLY: addresses let through although the policy blocks them (a test server on
   * 127.0.0.1). Every other address still meets the default policy.
   */
  allowAddress?: (address: string) => boolean;
  /** What messages call the URL: "The {subject} ..." (default "dataset URL"; an image fetch says "image URL"). */
  subject?: string;
  /** Publishes fetched files and their facts for workers and other servers (none: this machine only). */
  files?: FileStore;
  /** Cache entries older than this are removed (default a week). */
  cacheMaxAgeMs?: number;
  /** The cache's CSV files together stay under this, oldest removed first (default 10 × maxBytes). */
  cacheMaxBytes?: number;
}

/** Entries written this recently are never removed by the size bound (a queued job may read them). */
export const CACHE_MIN_AGE_MS = 60 * 60 * 1000;
export const CACHE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** What the last fetch of a URL found (DATA_DIR/url-cache/urls/<sha256 of the URL>.json). */
export interface CachedUrlFacts {
  url: string;
  sha256: string;
  rows: number;
  droppedRows: number;
  columns: string[];
  sizeBytes: number;
  fetchedAt: string;
}

export interface FetchedDataset extends CsvFacts {
  /** DATA_DIR/url-cache/<sha256>.csv */
  path: string;
  /** The URL the data came from after redirects. */
  finalUrl: string;
}

/** A fetched file's key in the file store: the cache names files by their sha256. */
export const urlCacheKey = (sha256: string): string => `url-cache/${sha256}.csv`;

const systemResolve = async (hostname: string): Promise<ResolvedAddress[]> =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export class UrlFetcher {
  private readonly cacheDir: string;
  private readonly resolve: (hostname: string) => Promise<ResolvedAddress[]>;
  private readonly subject: string;

  constructor(private readonly options: UrlFetcherOptions) {
    this.cacheDir = path.join(options.dataDir, 'url-cache');
    this.resolve = options.resolve ?? systemResolve;
    this.subject = options.subject ?? 'dataset URL';
  }

  /** Downloads and checks the dataset at `url`; throws DatasetRefusal with a plain reason. */
  async fetch(url: string): Promise<FetchedDataset> {
    return this.withinDeadline(async (deadline) => {
      await this.cleanCache();
      const fetched = await this.fetchWithin(url, deadline, (response, finalUrl) =>
        this.store(response, finalUrl, deadline),
      );
      await this.options.files?.put(urlCacheKey(fetched.sha256));
      await this.remember(url, fetched);
      return fetched;
    });
  }

  /**
   * Downloads the file at `url` to `destination` as it is (no CSV check, no cache), under the same
   * address policy, size and time limits; throws DatasetRefusal with a plain reason.
   */
  async download(url: string, destination: string): Promise<{ sizeBytes: number; finalUrl: string }> {
    return this.withinDeadline((deadline) =>
      this.fetchWithin(url, deadline, async (response, finalUrl) => {
        const counter = new ByteLimit(this.options.maxBytes);
        try {
          await pipeline(response, counter, createWriteStream(destination, { flags: 'wx', mode: 0o640 }), {
            signal: deadline,
          });
          throwIfCut(deadline);
        } catch (error) {
          await rm(destination, { force: true });
          throw error instanceof DatasetRefusal ? tooLarge(this.options.maxBytes, this.subject) : error;
        }
        return { sizeBytes: counter.bytes, finalUrl };
      }),
    );
  }

  private async withinDeadline<T>(work: (deadline: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await work(deadline);
    } catch (error) {
      if (deadline.aborted && !(error instanceof DatasetRefusal)) {
        throw new UrlUnreachable(
          `The ${this.subject} did not deliver the file within ${this.options.timeoutMs / 1000} s.`,
        );
      }
      throw error;
    }
  }

  /** What the last fetch of exactly this URL found, while its file is still cached; else null. */
  async cachedFacts(url: string): Promise<CachedUrlFacts | null> {
    try {
      const facts = JSON.parse(await readFile(await this.localIndex(url), 'utf8')) as CachedUrlFacts;
      if (facts.url !== url) return null;
      // In a shared store the facts are published after their file: that file is there for any reader.
      if (this.options.files?.backend === 's3') return facts;
      const file = await stat(path.join(this.cacheDir, `${facts.sha256}.csv`)).catch(() => null);
      return file?.isFile() ? facts : null;
    } catch {
      return null;
    }
  }

  /** The URL's facts file here, fetched from the shared store when another server fetched the URL. */
  private async localIndex(url: string): Promise<string> {
    const local = this.indexPath(url);
    if (!this.options.files || (await stat(local).catch(() => null))) return local;
    try {
      return await this.options.files.fetch(`url-cache/urls/${path.basename(local)}`);
    } catch (error) {
      if (error instanceof FileMissing) return local;
      throw error;
    }
  }

  /**
   * Keeps the cache bounded: removes CSV files and URL entries older than the age limit, then the
   * oldest CSV files while the total is over the size limit (none younger than CACHE_MIN_AGE_MS).
   * URL entries whose file is gone are removed too. Quiet about races with another fetch.
   */
  async cleanCache(now = Date.now()): Promise<void> {
    const maxAge = this.options.cacheMaxAgeMs ?? CACHE_MAX_AGE_MS;
    const maxBytes = this.options.cacheMaxBytes ?? this.options.maxBytes * 10;
    const files = await listFiles(this.cacheDir, (name) => /^[a-f0-9]{64}\.csv$/.test(name));
    const kept: typeof files = [];
    for (const file of files) {
      if (now - file.mtimeMs > maxAge) await rm(file.path, { force: true });
      else kept.push(file);
    }
    kept.sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = kept.reduce((sum, f) => sum + f.size, 0);
    const present = new Set(kept.map((f) => path.basename(f.path, '.csv')));
    for (const file of kept) {
      if (total <= maxBytes) break;
      if (now - file.mtimeMs < CACHE_MIN_AGE_MS) break; // sorted: the rest are younger still
      await rm(file.path, { force: true });
      present.delete(path.basename(file.path, '.csv'));
      total -= file.size;
    }
    for (const entry of await listFiles(path.join(this.cacheDir, 'urls'), (n) => n.endsWith('.json'))) {
      const facts = await readFile(entry.path, 'utf8')
        .then((text) => JSON.parse(text) as CachedUrlFacts)
        .catch(() => null);
      if (!facts || !present.has(facts.sha256) || now - entry.mtimeMs > maxAge) {
        await rm(entry.path, { force: true });
      }
    }
  }

  private indexPath(url: string): string {
    return path.join(this.cacheDir, 'urls', `${createHash('sha256').update(url).digest('hex')}.json`);
  }

  private async remember(url: string, fetched: FetchedDataset): Promise<void> {
    const facts: CachedUrlFacts = {
      url,
      sha256: fetched.sha256,
      rows: fetched.rows,
      droppedRows: fetched.droppedRows,
      columns: fetched.columns,
      sizeBytes: fetched.sizeBytes,
      fetchedAt: new Date().toISOString(),
    };
    await mkdir(path.join(this.cacheDir, 'urls'), { recursive: true });
    const file = this.indexPath(url);
    const partial = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(partial, JSON.stringify(facts), { mode: 0o640 });
    await rename(partial, file);
    await this.options.files?.put(`url-cache/urls/${path.basename(file)}`);
  }

  private async fetchWithin<T>(
    url: string,
    signal: AbortSignal,
    deliver: (response: IncomingMessage, finalUrl: string) => Promise<T>,
  ): Promise<T> {
    let current = parseHttpUrl(url, this.subject);
    for (let redirects = 0; ; redirects++) {
      const addresses = await this.checkedAddresses(current, signal);
      const response = await this.request(current, addresses, signal);
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304) {
        response.resume();
        const location = response.headers.location;
        if (!location) throw new UrlUnreachable(`The ${this.subject} answered ${status} without a Location.`);
        if (redirects >= MAX_REDIRECTS) {
          throw new UrlUnreachable(`The ${this.subject} redirects more than ${MAX_REDIRECTS} times.`);
        }
        current = parseHttpUrl(new URL(location, current).toString(), this.subject);
        continue;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        throw new UrlUnreachable(`The ${this.subject} answered HTTP ${status}, not the file.`);
      }
      const length = Number(response.headers['content-length']);
      if (Number.isFinite(length) && length > this.options.maxBytes) {
        response.destroy();
        throw tooLarge(this.options.maxBytes, this.subject);
      }
      return deliver(response, current.toString());
    }
  }

  /** Every address the host resolves to, each allowed by the policy (else a refusal naming it). */
  private async checkedAddresses(url: URL, signal: AbortSignal): Promise<ResolvedAddress[]> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: ResolvedAddress[];
    if (isIP(host)) {
      addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
    } else {
      try {
        addresses = await Promise.race([
          this.resolve(host),
          new Promise<never>((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
          ),
        ]);
      } catch (error) {
        if (signal.aborted) throw error;
        throw new UrlUnreachable(`The ${this.subject}'s host ${host} could not be found.`);
      }
      if (addresses.length === 0) {
        throw new UrlUnreachable(`The ${this.subject}'s host ${host} could not be found.`);
      }
    }
    for (const { address } of addresses) {
      const reason = blockedAddressReason(address);
      if (reason && !this.options.allowAddress?.(address)) {
        throw new DatasetRefusal(
          `The ${this.subject} points to ${reason} (${address}); the server does not fetch from it.`,
        );
      }
    }
    return addresses;
  }

  private request(url: URL, addresses: ResolvedAddress[], signal: AbortSignal): Promise<IncomingMessage> {
    // The connection uses the addresses just checked, never a new lookup of the name.
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if (options.all) {
        callback(
          null,
          addresses.map((a) => ({ address: a.address, family: a.family })),
        );
      } else {
        const first = addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0]!;
        callback(null, first.address, first.family);
      }
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(
        url,
        {
          method: 'GET',
          lookup: pinned,
          // A connection of its own each time: no pooled socket made for an earlier check is reused.
          agent: false,
          signal,
          headers: {
            accept: 'text/csv, text/plain;q=0.9, */*;q=0.1',
            'user-agent': 'QML-Studio-dataset-fetch',
          },
          // An IP literal in the URL: connect to it as checked.
          ...(isIP(url.hostname.replace(/^\[|\]$/g, '')) ? {} : { servername: url.hostname }),
        },
        resolve,
      );
      request.on('error', (error) => {
        if (signal.aborted) reject(error);
        else reject(new UrlUnreachable(`The ${this.subject} could not be fetched (${describe(error)}).`));
      });
      request.end();
    });
  }

  private async store(
    response: IncomingMessage,
    finalUrl: string,
    deadline: AbortSignal,
  ): Promise<FetchedDataset> {
    await mkdir(this.cacheDir, { recursive: true });
    await removeStalePartials(this.cacheDir);
    const partial = path.join(this.cacheDir, `.${randomBytes(12).toString('hex')}.part`);
    const inspect = new InspectingStream(this.options.maxBytes);
    try {
      await pipeline(response, inspect, createWriteStream(partial, { flags: 'wx', mode: 0o640 }), {
        signal: deadline,
      });
      throwIfCut(deadline);
      const facts = inspect.facts();
      const file = path.join(this.cacheDir, `${facts.sha256}.csv`);
      await rename(partial, file);
      return { ...facts, path: file, finalUrl };
    } catch (error) {
      await rm(partial, { force: true });
      if (error instanceof DatasetRefusal) {
        throw error.status === 413
          ? tooLarge(this.options.maxBytes, this.subject)
          : new DatasetRefusal(`The file at the ${this.subject} is not usable: ${error.message}`);
      }
      throw error;
    }
  }
}

/**
 * A body whose length only the connection's end gives looks complete when the deadline cuts the
 * connection: after the deadline nothing received counts (withinDeadline says it was too slow).
 */
function throwIfCut(deadline: AbortSignal): void {
  if (deadline.aborted) throw new Error('the time limit cut the body');
}

/** The regular files in `dir` whose names pass `keep`, with size and age; [] when there is no dir. */
async function listFiles(dir: string, keep: (name: string) => boolean) {
  const names = await readdir(dir).catch(() => [] as string[]);
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const name of names.filter(keep)) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info?.isFile()) files.push({ path: file, size: info.size, mtimeMs: info.mtimeMs });
  }
  return files;
}

const tooLarge = (max: number, subject: string) =>
  new DatasetRefusal(`The file at the ${subject} is larger than the limit of ${formatMegabytes(max)}.`, 413);

/** Passes bytes through until more than `max` have come, then fails with a 413 refusal. */
class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.max) done(new DatasetRefusal('too large', 413));
    else done(null, chunk);
  }
}

function parseHttpUrl(raw: string, subject: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DatasetRefusal(`The ${subject} is not a valid address.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DatasetRefusal(`The ${subject} must start with http:// or https:// (not ${url.protocol}//).`);
  }
  if (url.username || url.password) {
    throw new DatasetRefusal(`The ${subject} may not carry a user name or password.`);
  }
  return url;
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code}` : error.message;
}
