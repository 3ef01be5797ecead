// Rate limits of the whole server: one limiter over one store per deployment (memory or Redis).

import { Redis } from 'ioredis';

/** Events (failed sign-ins, sign-ups, verification mails) recorded under keys, within a sliding window. */
export interface RateStore {
  /** How many events `key` has within the window ending at `now`, and the times of the oldest and newest. */
  recent(
    key: string,
    windowMs: number,
    now: number,
  ): Promise<{ count: number; oldest: number | null; newest: number | null }>;
  add(key: string, windowMs: number, now: number): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

/** In this process only: a restart forgets the counts, and each server counts its own. */
export class MemoryRateStore implements RateStore {
  private readonly events = new Map<string, number[]>();

  constructor(private readonly maxKeys = 10_000) {}

  async recent(key: string, windowMs: number, now: number) {
    const times = this.live(key, windowMs, now);
    return { count: times.length, oldest: times[0] ?? null, newest: times.at(-1) ?? null };
  }

  async add(key: string, windowMs: number, now: number) {
    const times = this.live(key, windowMs, now);
    times.push(now);
    this.events.set(key, times);
    if (this.events.size > this.maxKeys) this.prune(windowMs, now);
  }

  async clear(key: string) {
    this.events.delete(key);
  }

  async close() {}

  private live(key: string, windowMs: number, now: number) {
    return (this.events.get(key) ?? []).filter((at) => now - at < windowMs);
  }

  private prune(windowMs: number, now: number) {
    for (const [key, times] of this.events) {
      if (times.every((at) => now - at >= windowMs)) this.events.delete(key);
    }
  }
}

/**
 * The store of rate counts does not answer (Redis down or unreachable): a request that must be
 * counted cannot be checked, so it is refused with 503 and this sentence (error-handler.ts), never a 500.
 */
export class RateStoreUnavailableError extends Error {
  readonly statusCode = 503;
  constructor(cause: unknown) {
    super(
      'The server cannot reach Redis, which it needs to check rate limits, so this request cannot be handled right now. Please try again in a minute.',
      { cause },
    );
    this.name = 'RateStoreUnavailableError';
  }
}

/** Runs a Redis command; its failure becomes a RateStoreUnavailableError. */
async function guarded<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    throw new RateStoreUnavailableError(error);
  }
}

/**
 * On Redis (REDIS_URL): every server shares the counts and they survive restarts. One sorted set
 * per key ("<prefix>:<key>") holds the event times; it expires with its window.
 */
export class RedisRateStore implements RateStore {
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async recent(key: string, windowMs: number, now: number) {
    const name = this.name(key);
    const results = await guarded(() =>
      this.redis
        .multi()
        .zremrangebyscore(name, '-inf', now - windowMs)
        .zcard(name)
        .zrange(name, 0, 0, 'WITHSCORES')
        .zrange(name, -1, -1, 'WITHSCORES')
        .exec(),
    );
    const count = Number(results?.[1]?.[1] ?? 0);
    const oldest = (results?.[2]?.[1] as string[] | undefined)?.[1];
    const newest = (results?.[3]?.[1] as string[] | undefined)?.[1];
    return {
      count,
      oldest: oldest === undefined ? null : Number(oldest),
      newest: newest === undefined ? null : Number(newest),
    };
  }

  async add(key: string, windowMs: number, now: number) {
    const name = this.name(key);
    // Members must differ for events in the same millisecond.
    const member = `${now}-${process.pid}-${this.sequence++}`;
    await guarded(() => this.redis.multi().zadd(name, now, member).pexpire(name, windowMs).exec());
  }

  async clear(key: string) {
    await guarded(() => this.redis.del(this.name(key)));
  }

  async close() {
    this.redis.disconnect();
  }

  private name(key: string) {
    return `${this.prefix}:${key}`;
  }
}

/** One limit: at most `max` events under `key` within `windowMs`. */
export interface RateRule {
  key: string;
  max: number;
  windowMs: number;
}

/**
 * The one rate limiter: counts events under keys in a sliding window, in memory or on Redis
 * (REDIS_URL, so every server instance shares the counts). The sign-in throttle
 * (server/auth/login-throttle.ts) and the account limits (sign-ups, verification mail) use it; a
 * refused attempt is told how many seconds to wait (Retry-After).
 */
export class RateLimiter {
  constructor(private readonly store: RateStore = new MemoryRateStore()) {}

  /** Seconds until every rule allows one more event, 0 when allowed now. */
  async retryAfterSeconds(rules: readonly RateRule[], now = Date.now()): Promise<number> {
    const waits = await Promise.all(
      rules.map(async ({ key, max, windowMs }) => {
        const { count, oldest } = await this.store.recent(key, windowMs, now);
        return count >= max && oldest !== null ? Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) : 0;
      }),
    );
    return Math.max(0, ...waits);
  }

  async record(rules: readonly RateRule[], now = Date.now()): Promise<void> {
    await Promise.all(rules.map(({ key, windowMs }) => this.store.add(key, windowMs, now)));
  }

  /** Records the event when every rule allows it; otherwise records nothing and returns the wait. */
  async attempt(rules: readonly RateRule[], now = Date.now()): Promise<number> {
    const wait = await this.retryAfterSeconds(rules, now);
    if (wait === 0) await this.record(rules, now);
    return wait;
  }

  /** Forgets the events of one key (a successful sign-in clears its failures). */
  clear(key: string): Promise<void> {
    return this.store.clear(key);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** The deployment's store for rate counts: Redis when REDIS_URL is set, else this process's memory. */
export function createRateStore(config: { redisUrl: string | null; redisPrefix: string }): RateStore {
  if (!config.redisUrl) return new MemoryRateStore();
  // One retry, not twenty, while Redis is away: a sign-in should fail soon rather than hang.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // the health check reports Redis; a command in flight fails
  return new RedisRateStore(redis, `${config.redisPrefix}:rate`);
}

/**
 * The one wording of a rate-limit refusal, with the wait in seconds under a minute (a sign-in's short
 * delays), else rounded up to whole minutes (the reply also carries Retry-After in seconds):
 * "Too many uploads. Please try again in 3 minutes."
 */
export function tooManyText(what: string, waitSeconds: number): string {
  if (waitSeconds < 60) {
    const seconds = Math.max(1, Math.ceil(waitSeconds));
    return `Too many ${what}. Please try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
  }
  const minutes = Math.max(1, Math.ceil(waitSeconds / 60));
  return `Too many ${what}. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}
