import { Redis } from 'ioredis';
import { MemoryFailureStore, RedisFailureStore, type FailureStore } from '../auth/login-throttle';

/** One limit: at most `max` events under `key` within `windowMs`. */
export interface RateRule {
  key: string;
  max: number;
  windowMs: number;
}

/**
 * Counts events (sign-up attempts, verification mails) under keys in a sliding window, on the same
 * stores as the sign-in throttle: in memory, or on Redis (REDIS_URL) so every server instance
 * shares the counts. A refused attempt is told how many seconds to wait (Retry-After).
 */
export class RateLimiter {
  constructor(private readonly store: FailureStore) {}

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

  close(): Promise<void> {
    return this.store.close();
  }
}

/** The deployment's store for rate counts: Redis when REDIS_URL is set, else this process's memory. */
export function createRateStore(config: { redisUrl: string | null; redisPrefix: string }): FailureStore {
  if (!config.redisUrl) return new MemoryFailureStore();
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined); // the health check reports Redis; a command in flight fails
  return new RedisFailureStore(redis, `${config.redisPrefix}:rate`);
}

const HOUR = 60 * 60 * 1000;

/** The account limits: sign-ups per address, verification mails per e-mail address and per account. */
export const ACCOUNT_LIMITS = {
  registrationsPerAddress: { max: 10, windowMs: HOUR },
  verificationMailsPerEmail: { max: 3, windowMs: HOUR },
  verificationMailsPerAccount: { max: 5, windowMs: HOUR },
} as const;
