import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, REDIS_URL } from '../test-support/harness';
import { MemoryRateStore, RateLimiter, RedisRateStore, type RateStore } from '../platform/rate-limiter';
import { parseTokenKey, TokenCipher } from './token-cipher';

const redisClients: Redis[] = [];
afterAll(() => redisClients.forEach((client) => client.disconnect()));

/** Two servers of one deployment: on Redis they share the counts; in memory each has its own. */
const STORES: { name: string; available: boolean; shared: boolean; open: () => () => RateStore }[] = [
  {
    name: 'memory',
    available: true,
    shared: false,
    open: () => () => new MemoryRateStore(),
  },
  {
    name: 'Redis',
    available: redisAvailable,
    shared: true,
    open: () => {
      const prefix = `qml-test-${randomBytes(6).toString('hex')}:rate`;
      return () => {
        const client = new Redis(REDIS_URL);
        redisClients.push(client);
        return new RedisRateStore(client, prefix);
      };
    },
  },
];

describe.each(STORES)('account rate limits in $name', ({ available, shared, open }) => {
  it.skipIf(!available)('allows max events per key in the window, then says how long to wait', async () => {
    const limiter = new RateLimiter(open()());
    const rules = [{ key: 'verify-mail:email:a@example.com', max: 3, windowMs: 60_000 }];
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) expect(await limiter.attempt(rules, t0 + i)).toBe(0);
    expect(await limiter.attempt(rules, t0 + 10)).toBe(60);
    // A refused attempt is not counted: once the oldest leaves the window one more is allowed.
    expect(await limiter.attempt(rules, t0 + 60_000)).toBe(0);
    // Other keys are counted apart.
    expect(await limiter.attempt([{ ...rules[0]!, key: 'verify-mail:email:b@example.com' }], t0 + 10)).toBe(
      0,
    );
  });

  it.skipIf(!available)('the strictest of several rules decides (per address and per account)', async () => {
    const limiter = new RateLimiter(open()());
    const perEmail = { key: 'e', max: 5, windowMs: 60_000 };
    const perAccount = { key: 'acct', max: 2, windowMs: 120_000 };
    expect(await limiter.attempt([perEmail, perAccount], 0)).toBe(0);
    expect(await limiter.attempt([perEmail, perAccount], 1_000)).toBe(0);
    expect(await limiter.attempt([perEmail, perAccount], 2_000)).toBe(118); // the oldest (at 0) leaves at 120 s
  });

  it.skipIf(!available)(shared ? 'two servers share the counts' : 'each process counts its own', async () => {
    const store = open();
    const a = new RateLimiter(store());
    const b = new RateLimiter(store());
    const rules = [{ key: 'register:address:10.0.0.1', max: 1, windowMs: 60_000 }];
    expect(await a.attempt(rules, 5)).toBe(0);
    expect((await b.attempt(rules, 6)) > 0).toBe(shared);
  });
});

describe('provider token encryption', () => {
  const key = parseTokenKey(Buffer.alloc(32, 3).toString('base64'))!;

  it('round-trips, differs for equal tokens and refuses an altered or foreign value', () => {
    const cipher = new TokenCipher(key);
    const one = cipher.encrypt('my-token_1');
    const two = cipher.encrypt('my-token_1');
    expect(one).not.toContain('my-token_1');
    expect(one).not.toBe(two);
    expect(cipher.decrypt(one)).toBe('my-token_1');
    const parts = one.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    expect(cipher.decrypt([...parts.slice(0, 3), body.toString('base64url')].join('.'))).toBeNull();
    expect(new TokenCipher(Buffer.alloc(32, 4)).decrypt(one)).toBeNull();
  });

  it('takes only a 32-byte key', () => {
    expect(parseTokenKey('c2hvcnQ=')).toBeNull();
    expect(() => new TokenCipher(Buffer.alloc(16))).toThrow();
  });
});
