import { Redis } from 'ioredis';

/** Failed sign-ins recorded under one key, within a sliding window. */
export interface FailureStore {
  /** How many failures `key` has within the window ending at `now`, and the time of the oldest. */
  recent(key: string, windowMs: number, now: number): Promise<{ count: number; oldest: number | null }>;
  add(key: string, windowMs: number, now: number): Promise<void>;
  clear(key: string): Promise<void>;
  close(): Promise<void>;
}

/** In this process only: a restart forgets the failures, and each server counts its own. */
export class MemoryFailureStore implements FailureStore {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly maxKeys = 10_000) {}

  async recent(key: string, windowMs: number, now: number) {
    const times = this.live(key, windowMs, now);
    return { count: times.length, oldest: times[0] ?? null };
  }

  async add(key: string, windowMs: number, now: number) {
    const times = this.live(key, windowMs, now);
    times.push(now);
    this.failures.set(key, times);
    if (this.failures.size > this.maxKeys) this.prune(windowMs, now);
  }

  async clear(key: string) {
    this.failures.delete(key);
  }

  async close() {}

  private live(key: string, windowMs: number, now: number) {
    return (this.failures.get(key) ?? []).filter((at) => now - at < windowMs);
  }

  private prune(windowMs: number, now: number) {
    for (const [key, times] of this.failures) {
      if (times.every((at) => now - at >= windowMs)) this.failures.delete(key);
    }
  }
}

/**
 * On Redis (REDIS_URL): every server shares the counts and they survive restarts. One sorted set
 * per key ("<prefix>:<key>") holds the event times; it expires with its window. The sign-in
 * throttle and the account rate limits (server/accounts/rate-limiter.ts) both count on it.
 */
export class RedisFailureStore implements FailureStore {
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async recent(key: string, windowMs: number, now: number) {
    const name = this.name(key);
    const results = await this.redis
      .multi()
      .zremrangebyscore(name, '-inf', now - windowMs)
      .zcard(name)
      .zrange(name, 0, 0, 'WITHSCORES')
      .exec();
    const count = Number(results?.[1]?.[1] ?? 0);
    const oldest = (results?.[2]?.[1] as string[] | undefined)?.[1];
    return { count, oldest: oldest === undefined ? null : Number(oldest) };
  }

  async add(key: string, windowMs: number, now: number) {
    const name = this.name(key);
    // Members must differ for failures in the same millisecond.
    const member = `${now}-${process.pid}-${this.sequence++}`;
    await this.redis.multi().zadd(name, now, member).pexpire(name, windowMs).exec();
  }

  async clear(key: string) {
    await this.redis.del(this.name(key));
  }

  async close() {
    this.redis.disconnect();
  }

  private name(key: string) {
    return `${this.prefix}:${key}`;
  }
}

export interface ThrottleLimits {
  /** Failures allowed for one e-mail from one address within the window. */
  perEmailAndAddress: number;
  /** Failures allowed from one address across all e-mails within the window (password spraying). */
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = {
  perEmailAndAddress: 10,
  perAddress: 50,
  windowMs: 15 * 60 * 1000,
};

/**
 * Slows down password guessing: after too many failed sign-ins for one e-mail from one address,
 * or from one address across e-mails, within the window, attempts are refused until it has passed.
 * The address is the request's (request.ip), which follows X-Forwarded-For only from the proxies
 * TRUST_PROXY names. A success forgets the failures of that e-mail from that address, not the
 * address's total (one account of one's own must not reset a spraying count).
 */
export class LoginThrottle {
  private readonly limits: ThrottleLimits;

  constructor(
    private readonly store: FailureStore = new MemoryFailureStore(),
    limits: Partial<ThrottleLimits> = {},
  ) {
    this.limits = { ...DEFAULT_THROTTLE_LIMITS, ...limits };
  }

  /** Seconds until the next attempt is allowed, or 0 when it is allowed now. */
  async retryAfterSeconds(ip: string, email: string, now = Date.now()): Promise<number> {
    const { windowMs } = this.limits;
    const waits = await Promise.all(
      this.rules(ip, email).map(async ({ key, max }) => {
        const { count, oldest } = await this.store.recent(key, windowMs, now);
        return count >= max && oldest !== null ? Math.ceil((oldest + windowMs - now) / 1000) : 0;
      }),
    );
    return Math.max(0, ...waits);
  }

  async recordFailure(ip: string, email: string, now = Date.now()): Promise<void> {
    await Promise.all(this.rules(ip, email).map(({ key }) => this.store.add(key, this.limits.windowMs, now)));
  }

  async recordSuccess(ip: string, email: string): Promise<void> {
    await this.store.clear(this.pairKey(ip, email));
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private pairKey(ip: string, email: string) {
    return `pair:${ip}|${email.toLowerCase()}`;
  }

  private rules(ip: string, email: string) {
    return [
      { key: this.pairKey(ip, email), max: this.limits.perEmailAndAddress },
      { key: `address:${ip}`, max: this.limits.perAddress },
    ];
  }
}

/** The throttle for this deployment: on Redis when REDIS_URL is set, else in memory. */
export function createLoginThrottle(config: { redisUrl: string | null; redisPrefix: string }): LoginThrottle {
  if (!config.redisUrl) return new LoginThrottle(new MemoryFailureStore());
  // One retry, not twenty, while Redis is away: a sign-in should fail soon rather than hang.
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // the health check reports Redis; a command in flight fails
  return new LoginThrottle(new RedisFailureStore(redis, `${config.redisPrefix}:login-failures`));
}
