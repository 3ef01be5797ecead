import { ApiError, messageOf } from '../../api/client';

/** Spec section 7: the demo data caches and their version (bump it when the files' shape changes). */
export const DEMO_CACHES = {
  detail: 'application-output-detail',
  record: 'application-output-record',
  compare: 'application-output-compare',
} as const;
export const DEMO_CACHE_VERSION = 1;
export type DemoCacheKind = keyof typeof DEMO_CACHES;

/** 'application-output-detail-v1' and so on. */
export const demoCacheName = (kind: DemoCacheKind) => `${DEMO_CACHES[kind]}-v${DEMO_CACHE_VERSION}`;

export interface CachedReply<T> {
  body: T;
  /** Where the body came from: the network (new or changed), or the cache (304, or offline). */
  from: 'network' | 'cache';
}

interface Platform {
  /** The Cache API; absent on insecure origins and in some embedded browsers. */
  caches?: CacheStorage;
  fetch: typeof fetch;
}

const defaultPlatform = (): Platform => ({
  caches: typeof caches === 'undefined' ? undefined : caches,
  fetch: (...args) => fetch(...args),
});

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a proxy's page): keep the status
  }
  if (!response.ok) throw new ApiError(messageOf(body, response.status), response.status, body);
  return body as T;
}

/** Older versions of a cache are dropped the first time the new version is opened. */
const pruned = new WeakSet<CacheStorage>();
async function pruneOldVersions(storage: CacheStorage) {
  if (pruned.has(storage)) return;
  pruned.add(storage);
  const current = new Set(Object.keys(DEMO_CACHES).map((kind) => demoCacheName(kind as DemoCacheKind)));
  const bases = Object.values(DEMO_CACHES);
  for (const name of await storage.keys()) {
    if (!current.has(name) && bases.some((base) => name.startsWith(`${base}-v`))) await storage.delete(name);
  }
}

/**
 * GET a static demo data file through the Cache API: a cached copy is revalidated with its
 * validators (If-None-Match, If-Modified-Since) and served on 304; a 200 replaces it. Without the
 * Cache API it is a plain fetch. When the network fails and a copy is cached, the copy is served.
 */
export async function cachedJson<T>(
  url: string,
  kind: DemoCacheKind,
  platform: Platform = defaultPlatform(),
): Promise<CachedReply<T>> {
  if (!platform.caches) return { body: await parse<T>(await platform.fetch(url)), from: 'network' };
  await pruneOldVersions(platform.caches);
  const cache = await platform.caches.open(demoCacheName(kind));
  const cached = await cache.match(url);
  const headers = new Headers();
  const etag = cached?.headers.get('etag');
  const lastModified = cached?.headers.get('last-modified');
  if (etag) headers.set('if-none-match', etag);
  if (lastModified) headers.set('if-modified-since', lastModified);
  let response: Response;
  try {
    // no-store: the conditional request is ours (the HTTP cache would add or answer its own).
    response = await platform.fetch(url, { headers, cache: 'no-store' });
  } catch (error) {
    if (cached) return { body: (await cached.json()) as T, from: 'cache' };
    throw error;
  }
  if (response.status === 304 && cached) return { body: (await cached.json()) as T, from: 'cache' };
  if (response.ok) await cache.put(url, response.clone());
  else if (response.status === 404) await cache.delete(url);
  return { body: await parse<T>(response), from: 'network' };
}
