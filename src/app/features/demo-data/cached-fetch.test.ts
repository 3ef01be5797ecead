// The demo data's cached fetch: the spec's cache names (version 1), revalidation with the cached
// copy's validators, the copy served on 304, a changed file replacing it, plain fetch without the
// Cache API, the copy served when offline, and older cache versions dropped. The Cache API is the
// browser's, so a small in-memory CacheStorage stands in for it here.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { cachedJson, demoCacheName } from './cached-fetch';

class MemoryCache {
  readonly entries = new Map<string, Response>();
  async match(url: string) {
    return this.entries.get(url)?.clone();
  }
  async put(url: string, response: Response) {
    this.entries.set(url, response);
  }
  async delete(url: string) {
    return this.entries.delete(url);
  }
}

class MemoryCacheStorage {
  readonly caches = new Map<string, MemoryCache>();
  async open(name: string) {
    const cache = this.caches.get(name) ?? new MemoryCache();
    this.caches.set(name, cache);
    return cache;
  }
  async keys() {
    return [...this.caches.keys()];
  }
  async delete(name: string) {
    return this.caches.delete(name);
  }
}

/** A stand-in server with the demo routes' rules: ETag per content, 304 to a matching If-None-Match. */
function server(initial: unknown) {
  let body = JSON.stringify(initial);
  let version = 1;
  const requests: Headers[] = [];
  const fetch = async (_url: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    requests.push(headers);
    const etag = `"v${version}"`;
    const validators = { etag, 'last-modified': 'Sun, 01 Mar 2026 10:00:00 GMT' };
    if (headers.get('if-none-match') === etag)
      return new Response(null, { status: 304, headers: validators });
    return new Response(body, {
      status: 200,
      headers: { ...validators, 'content-type': 'application/json' },
    });
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    requests,
    change(next: unknown) {
      body = JSON.stringify(next);
      version += 1;
    },
  };
}

const URL_ = '/api/demo-data/fraud-detection/compare';

describe('cachedJson', () => {
  it('uses the spec cache names with version 1', () => {
    expect([demoCacheName('detail'), demoCacheName('record'), demoCacheName('compare')]).toEqual([
      'application-output-detail-v1',
      'application-output-record-v1',
      'application-output-compare-v1',
    ]);
  });

  it('stores the first answer, revalidates with its validators and serves the copy on 304', async () => {
    const caches = new MemoryCacheStorage();
    const api = server({ data: { outputs: [1] } });
    const platform = { caches: caches as unknown as CacheStorage, fetch: api.fetch };
    expect(await cachedJson(URL_, 'compare', platform)).toEqual({
      body: { data: { outputs: [1] } },
      from: 'network',
    });
    expect(api.requests[0]!.get('if-none-match')).toBeNull();
    expect(caches.caches.get('application-output-compare-v1')!.entries.has(URL_)).toBe(true);

    expect(await cachedJson(URL_, 'compare', platform)).toEqual({
      body: { data: { outputs: [1] } },
      from: 'cache',
    });
    expect(api.requests[1]!.get('if-none-match')).toBe('"v1"');
    expect(api.requests[1]!.get('if-modified-since')).toBe('Sun, 01 Mar 2026 10:00:00 GMT');

    api.change({ data: { outputs: [2] } });
    expect(await cachedJson(URL_, 'compare', platform)).toEqual({
      body: { data: { outputs: [2] } },
      from: 'network',
    });
    expect(await cachedJson(URL_, 'compare', platform)).toEqual({
      body: { data: { outputs: [2] } },
      from: 'cache',
    });
    expect(api.requests[3]!.get('if-none-match')).toBe('"v2"');
  });

  it('serves the cached copy when the network fails, and fails without one', async () => {
    const caches = new MemoryCacheStorage();
    const api = server({ data: 1 });
    await cachedJson(URL_, 'compare', { caches: caches as unknown as CacheStorage, fetch: api.fetch });
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    const platform = { caches: caches as unknown as CacheStorage, fetch: offline };
    expect(await cachedJson(URL_, 'compare', platform)).toEqual({ body: { data: 1 }, from: 'cache' });
    await expect(cachedJson('/api/demo-data/other/compare', 'compare', platform)).rejects.toThrow(TypeError);
  });

  it('without the Cache API it is a plain fetch; an error reply rejects with its detail and status', async () => {
    const api = server({ data: 3 });
    expect(await cachedJson(URL_, 'detail', { fetch: api.fetch })).toEqual({
      body: { data: 3 },
      from: 'network',
    });
    expect(api.requests[0]!.get('if-none-match')).toBeNull();
    const missing = (async () =>
      new Response(JSON.stringify({ success: false, detail: 'Demo data has not been generated yet' }), {
        status: 404,
      })) as typeof fetch;
    const error = await cachedJson(URL_, 'detail', { fetch: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, message: 'Demo data has not been generated yet' });
  });

  it('drops a cached copy the server no longer has (404) and older versions of its caches', async () => {
    const caches = new MemoryCacheStorage();
    await caches.open('application-output-compare-v0');
    await caches.open('unrelated-cache');
    const api = server({ data: 1 });
    await cachedJson(URL_, 'compare', { caches: caches as unknown as CacheStorage, fetch: api.fetch });
    expect(await caches.keys()).toEqual(['unrelated-cache', 'application-output-compare-v1']);
    const gone = (async () =>
      new Response('{"success":false,"detail":"gone"}', { status: 404 })) as typeof fetch;
    await expect(
      cachedJson(URL_, 'compare', { caches: caches as unknown as CacheStorage, fetch: gone }),
    ).rejects.toMatchObject({ status: 404 });
    expect(caches.caches.get('application-output-compare-v1')!.entries.has(URL_)).toBe(false);
  });
});
