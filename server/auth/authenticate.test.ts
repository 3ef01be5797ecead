import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openMemoryDatabase, type Database } from '../db/database';
import { RedisChangeChannel } from '../db/redis-change-channel';
import { TableVersions } from '../db/table-versions';
import { REDIS_URL, redisAvailable } from '../test-support/harness';
import { migrate } from '../db/migrate';
import { AccessTokens } from './access-tokens';
import { AuthService } from './auth-service';
import { hashPassword } from './passwords';
import { UsersRepository } from './users-repository';

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

  it('stops a token at once after logout, and after a revocation written through the database', async () => {
    const auth = new AuthService(db, tokens, { sessionCacheMs: 60_000 });
    const first = await signIn(auth);
    const firstUser = (await auth.authenticate(first))!;
    await auth.logout(firstUser.user.id, firstUser.sessionId);
    expect(await auth.authenticate(first)).toBeNull();

    const second = await signIn(auth);
    const { sessionId } = (await auth.authenticate(second))!;
    // Not through AuthService (an admin's "sign out everywhere", a password change): the write itself tells.
    await db.query('update sessions set revoked_at = now() where id = $1', [sessionId]);
    expect(await auth.authenticate(second)).toBeNull();
  });

  it('without a channel, a revocation no one announced is noticed once the entry has expired', async () => {
    // Another process's database handle, its writes unknown to this one's versions.
    const elsewhere = { ...db, versions: new TableVersions() } as Database;
    const auth = new AuthService(elsewhere, tokens, { sessionCacheMs: 200 });
    const token = await signIn(auth);
    const { sessionId } = (await auth.authenticate(token))!;
    await db.query('update sessions set revoked_at = now() where id = $1', [sessionId]);
    expect(await auth.authenticate(token)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await auth.authenticate(token)).toBeNull();
  });

  it.skipIf(!redisAvailable)(
    'with Redis, a revocation written by another process stops the token here at once',
    async () => {
      const prefix = `auth-test-${process.pid}-${Date.now()}`;
      const here = new TableVersions();
      const hereChannel = new RedisChangeChannel(REDIS_URL, prefix, here);
      here.connect(hereChannel);
      const thereChannel = new RedisChangeChannel(REDIS_URL, prefix, db.versions);
      db.versions.connect(thereChannel);
      try {
        await vi.waitFor(() => expect(hereChannel.live && thereChannel.live).toBe(true));
        const auth = new AuthService({ ...db, versions: here } as Database, tokens, {
          sessionCacheMs: 60_000,
        });
        const token = await signIn(auth);
        const { sessionId } = (await auth.authenticate(token))!;
        expect(await auth.authenticate(token)).not.toBeNull();
        const before = queries.length;
        expect(await auth.authenticate(token)).not.toBeNull();
        expect(queries.length).toBe(before); // remembered
        // The write resolves after its announcement was published; Redis delivers it in moments.
        await db.query('update sessions set revoked_at = now() where id = $1', [sessionId]);
        await vi.waitFor(async () => expect(await auth.authenticate(token)).toBeNull(), {
          timeout: 1000,
          interval: 5,
        });
      } finally {
        db.versions.connect(null);
        hereChannel.close();
        thereChannel.close();
      }
    },
  );

  it('refuses a token whose session belongs to another user', async () => {
    const auth = new AuthService(db, tokens);
    const token = await signIn(auth);
    const { sessionId } = (await auth.authenticate(token))!;
    const forged = await tokens.sign({ userId: 999, sessionId });
    expect(await auth.authenticate(forged)).toBeNull();
  });
});
