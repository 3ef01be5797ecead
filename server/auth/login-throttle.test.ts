import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, REDIS_URL } from '../test-support/harness';
import { MemoryRateStore, RedisRateStore, type RateStore } from '../platform/rate-limiter';
import { LoginThrottle } from './login-throttle';

const redisClients: Redis[] = [];
afterAll(() => redisClients.forEach((client) => client.disconnect()));

/** A store of each kind; the Redis ones of one test share a fresh prefix (as servers of one deployment). */
const STORES: { name: string; available: boolean; open: () => () => RateStore }[] = [
  {
    name: 'memory',
    available: true,
    open: () => {
      const store = new MemoryRateStore();
      return () => store;
    },
  },
  {
    name: 'Redis',
    available: redisAvailable,
    open: () => {
      const prefix = `qml-test-${randomBytes(6).toString('hex')}`;
      return () => {
        const client = new Redis(REDIS_URL);
        redisClients.push(client);
        return new RedisRateStore(client, prefix);
      };
    },
  },
];

describe.each(STORES)('login throttle in $name', ({ available, open }) => {
  it.skipIf(!available)(
    'refuses an e-mail from one address after too many failures, until the window passes',
    async () => {
      const throttle = new LoginThrottle(open()(), {
        perEmailAndAddress: 3,
        perAddress: 100,
        windowMs: 60_000,
      });
      const t0 = Date.now();
      for (let i = 0; i < 3; i++) {
        expect(await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + i)).toBe(0);
        await throttle.recordFailure('10.0.0.1', 'ADA@example.com', t0 + i);
      }
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + 10)).toBe(60);
      // Another address, or another e-mail, is not affected.
      expect(await throttle.retryAfterSeconds('10.0.0.2', 'ada@example.com', t0 + 10)).toBe(0);
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'bob@example.com', t0 + 10)).toBe(0);
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', t0 + 60_001)).toBe(0);
    },
  );

  it.skipIf(!available)(
    'caps one address across e-mails, and a success does not reset that cap',
    async () => {
      const throttle = new LoginThrottle(open()(), {
        perEmailAndAddress: 3,
        perAddress: 5,
        windowMs: 60_000,
      });
      const t0 = Date.now();
      for (let i = 0; i < 5; i++) await throttle.recordFailure('10.0.0.9', `user${i}@example.com`, t0 + i);
      await throttle.recordSuccess('10.0.0.9', 'own@example.com');
      expect(await throttle.retryAfterSeconds('10.0.0.9', 'fresh@example.com', t0 + 10)).toBe(60);
      expect(await throttle.retryAfterSeconds('10.0.0.8', 'fresh@example.com', t0 + 10)).toBe(0);
    },
  );

  it.skipIf(!available)('caps one account across addresses', async () => {
    const throttle = new LoginThrottle(open()(), {
      perEmailAndAddress: 100,
      perAddress: 100,
      perAccount: 4,
      windowMs: 60_000,
    });
    const t0 = Date.now();
    for (let i = 0; i < 4; i++) await throttle.recordFailure(`10.2.0.${i}`, 'ada@example.com', t0 + i);
    expect(await throttle.retryAfterSeconds('10.2.0.99', 'ADA@example.com', t0 + 10)).toBe(60);
    expect(await throttle.retryAfterSeconds('10.2.0.99', 'bob@example.com', t0 + 10)).toBe(0);
  });

  it.skipIf(!available)('forgets the failures of an e-mail from an address after it signs in', async () => {
    const throttle = new LoginThrottle(open()(), { perEmailAndAddress: 2, windowMs: 60_000 });
    await throttle.recordFailure('::1', 'ada@example.com');
    await throttle.recordSuccess('::1', 'ada@example.com');
    await throttle.recordFailure('::1', 'ada@example.com');
    expect(await throttle.retryAfterSeconds('::1', 'ada@example.com')).toBe(0);
  });
});

describe('login throttle on Redis across servers', () => {
  it.skipIf(!redisAvailable)('shares the counts between servers and keeps them over a restart', async () => {
    const storeOfDeployment = STORES[1]!.open();
    const limits = { perEmailAndAddress: 2, windowMs: 60_000 };
    const first = new LoginThrottle(storeOfDeployment(), limits);
    const second = new LoginThrottle(storeOfDeployment(), limits);
    await first.recordFailure('10.1.1.1', 'ada@example.com');
    await second.recordFailure('10.1.1.1', 'ada@example.com');
    expect(await first.retryAfterSeconds('10.1.1.1', 'ada@example.com')).toBeGreaterThan(0);
    await first.close();
    await second.close();
    const restarted = new LoginThrottle(storeOfDeployment(), limits);
    expect(await restarted.retryAfterSeconds('10.1.1.1', 'ada@example.com')).toBeGreaterThan(0);
  });
});
