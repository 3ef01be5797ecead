import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openMemoryDatabase, type Database } from '../db/database';
import { migrate } from '../db/migrate';
import { AccessTokens } from './access-tokens';
import { AuthService } from './auth-service';
import { hashPassword } from './passwords';
import { SessionCache } from './session-cache';
import { UsersRepository } from './users-repository';

describe('session cache', () => {
  it('shares one lookup between concurrent misses and remembers it for its lifetime only', async () => {
    let clock = 0;
    const cache = new SessionCache<number>(1000, 100, () => clock);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)])).toEqual([
      1, 1, 1,
    ]);
    clock = 999;
    expect(await cache.get('a', load)).toBe(1);
    clock = 1000;
    expect(await cache.get('a', load)).toBe(2);
    cache.evict((key) => key === 'a');
    expect(await cache.get('a', load)).toBe(3);
  });

  it('keeps at most its size, dropping the oldest entries, and does not remember failures', async () => {
    const cache = new SessionCache<string>(60_000, 3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) await cache.get(key, async () => key);
    expect(cache.size).toBe(3);
    let loaded = false;
    await cache.get('a', async () => ((loaded = true), 'again'));
    expect(loaded).toBe(true);
    await expect(cache.get('x', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('x', async () => 'up')).toBe('up');
  });
});

describe('access token verification', () => {
  it('remembers a verified token only until it expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
      const tokens = new AccessTokens('k'.repeat(32), 3600);
      const token = await tokens.sign({ userId: 7, sessionId: 's' });
      expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 's' });
      expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 's' });
      vi.setSystemTime(new Date('2026-01-01T01:00:01Z'));
      expect(await tokens.verify(token)).toBeNull();
      expect(await tokens.verify(`${token.slice(0, -2)}xx`)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('authenticate', () => {
  let db: Database;
  let queries: string[];
  const tokens = new AccessTokens('t'.repeat(32), 3600);

  beforeAll(async () => {
    const memory = await openMemoryDatabase();
    await migrate(memory);
    const users = new UsersRepository(memory);
    const passwordHash = await hashPassword('a user password');
    await memory.transaction((tx) =>
      users.createActivated(tx, { name: 'ada', email: 'ada@example.com', passwordHash, roles: ['user'] }),
    );
    queries = [];
    // Counts the round trips the service makes.
    db = {
      ...memory,
      kind: memory.kind,
      query: (sql, params) => {
        queries.push(sql);
        return memory.query(sql, params);
      },
      transaction: (fn) => memory.transaction(fn),
      exec: (sql) => memory.exec(sql),
      ping: () => memory.ping(),
      close: () => memory.close(),
    } as Database;
  });
  afterAll(async () => db.close());

  const signIn = async (auth: AuthService) => {
    const outcome = await auth.login('ada@example.com', 'a user password');
    if (!outcome.ok) throw new Error(outcome.detail);
    return outcome.accessToken;
  };

  it('resolves session and user in one query, then reuses the answer for a burst of requests', async () => {
    const auth = new AuthService(db, tokens);
    const token = await signIn(auth);
    queries.length = 0;
    const found = await auth.authenticate(token);
    expect(found?.user).toMatchObject({ email: 'ada@example.com', roles: ['user'] });
    expect(queries).toHaveLength(1);
    await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(token)));
    expect(queries).toHaveLength(1);
  });

  it('stops a token at once after logout here, and within the cache window when revoked elsewhere', async () => {
    const auth = new AuthService(db, tokens, { sessionCacheMs: 200 });
    const first = await signIn(auth);
    const firstUser = (await auth.authenticate(first))!;
    await auth.logout(firstUser.user.id, firstUser.sessionId);
    expect(await auth.authenticate(first)).toBeNull();

    const second = await signIn(auth);
    const { sessionId } = (await auth.authenticate(second))!;
    // Another server process revokes the session: this one notices once its entry has expired.
    await db.query('update sessions set revoked_at = now() where id = $1', [sessionId]);
    expect(await auth.authenticate(second)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await auth.authenticate(second)).toBeNull();
  });

  it('refuses a token whose session belongs to another user', async () => {
    const auth = new AuthService(db, tokens);
    const token = await signIn(auth);
    const { sessionId } = (await auth.authenticate(token))!;
    const forged = await tokens.sign({ userId: 999, sessionId });
    expect(await auth.authenticate(forged)).toBeNull();
  });
});
