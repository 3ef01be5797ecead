import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, REDIS_URL } from '../test-support/harness';
import { MemoryRateStore, RedisRateStore, type RateStore } from '../platform/rate-limiter';
import { delaySeconds, LoginThrottle } from './login-throttle';

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

describe('delaySeconds', () => {
  it('is free below the allowance, then 1, 2, 4, ... seconds up to the cap', () => {
    expect([2, 3, 4, 5, 6, 20].map((n) => delaySeconds(n, 3, 10))).toEqual([0, 1, 2, 4, 8, 10]);
  });
});

describe.each(STORES)('login throttle in $name', ({ available, open }) => {
  it.skipIf(!available)(
    'makes one e-mail from one address wait longer after each failure past the free ones',
    async () => {
      const throttle = new LoginThrottle(open()(), {
        perEmailAndAddress: 3,
        perAddress: 100,
        windowMs: 3_600_000,
      });
      const t0 = Date.now();
      let at = t0;
      const waits: number[] = [];
      for (let i = 0; i < 8; i++) {
        const wait = await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', at);
        waits.push(wait);
        at += wait * 1000; // the client waits as told, then fails again
        await throttle.recordFailure('10.0.0.1', 'ADA@example.com', at);
      }
      expect(waits).toEqual([0, 0, 0, 1, 2, 4, 8, 16]);
      // Told the wait; one attempt goes through once it is over (a right password gets in then).
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', at + 1)).toBe(32);
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'ada@example.com', at + 32_000)).toBe(0);
      // Another address, or another e-mail, is not affected.
      expect(await throttle.retryAfterSeconds('10.0.0.2', 'ada@example.com', at + 1)).toBe(0);
      expect(await throttle.retryAfterSeconds('10.0.0.1', 'bob@example.com', at + 1)).toBe(0);
    },
  );

  it.skipIf(!available)(
    'holds an address that failed 50 times across e-mails at most a minute, and a success does not reset it',
    async () => {
      // Defaults: behind a NAT, 50 failures of others must not lock out a colleague's right password.
      const throttle = new LoginThrottle(open()());
      const t0 = Date.now();
      for (let i = 0; i < 50; i++) await throttle.recordFailure('10.0.0.9', `user${i}@example.com`, t0 + i);
      await throttle.recordSuccess('10.0.0.9', 'own@example.com');
      const wait = await throttle.retryAfterSeconds('10.0.0.9', 'colleague@example.com', t0 + 50);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(60);
      expect(await throttle.retryAfterSeconds('10.0.0.9', 'colleague@example.com', t0 + 49 + 60_000)).toBe(0);
      expect(await throttle.retryAfterSeconds('10.0.0.8', 'fresh@example.com', t0 + 50)).toBe(0);
    },
  );

  it.skipIf(!available)('makes one account guessed from many addresses wait, up to its cap', async () => {
    const throttle = new LoginThrottle(open()(), {
      perEmailAndAddress: 100,
      perAddress: 100,
      perAccount: 4,
      maxDelaySeconds: 300,
      windowMs: 3_600_000,
    });
    const t0 = Date.now();
    for (let i = 0; i < 30; i++) await throttle.recordFailure(`10.2.0.${i}`, 'ada@example.com', t0 + i);
    expect(await throttle.retryAfterSeconds('10.2.0.99', 'ADA@example.com', t0 + 30)).toBe(300);
    expect(await throttle.retryAfterSeconds('10.2.0.99', 'ADA@example.com', t0 + 29 + 300_000)).toBe(0);
    expect(await throttle.retryAfterSeconds('10.2.0.99', 'bob@example.com', t0 + 30)).toBe(0);
  });

  it.skipIf(!available)('forgets the failures of an e-mail from an address after it signs in', async () => {
    const throttle = new LoginThrottle(open()(), { perEmailAndAddress: 2, windowMs: 60_000 });
    await throttle.recordFailure('::1', 'ada@example.com');
    await throttle.recordFailure('::1', 'ada@example.com');
    await throttle.recordSuccess('::1', 'ada@example.com');
    await throttle.recordFailure('::1', 'ada@example.com');
    expect(await throttle.retryAfterSeconds('::1', 'ada@example.com')).toBe(0);
  });

  it.skipIf(!available)('forgets failures older than the window', async () => {
    const throttle = new LoginThrottle(open()(), { perEmailAndAddress: 1, windowMs: 60_000 });
    const t0 = Date.now();
    for (let i = 0; i < 6; i++) await throttle.recordFailure('10.3.0.1', 'ada@example.com', t0 + i);
    expect(await throttle.retryAfterSeconds('10.3.0.1', 'ada@example.com', t0 + 10)).toBe(32);
    expect(await throttle.retryAfterSeconds('10.3.0.1', 'ada@example.com', t0 + 60_010)).toBe(0);
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
