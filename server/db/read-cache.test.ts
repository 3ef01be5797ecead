import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryDatabase, type Database } from './database';
import { ReadCache } from './read-cache';
import { TableVersions, writtenTables, type ChangeChannel } from './table-versions';

describe('writtenTables', () => {
  it('names the tables a statement writes, nothing for a read, everything for DDL', () => {
    expect(writtenTables('select id from applications where user_id = $1')).toBeNull();
    expect(writtenTables('select updated_at, last_update from jobs')).toBeNull();
    expect(writtenTables('insert into applications (user_id) values ($1) returning id')).toEqual([
      'applications',
    ]);
    expect(writtenTables('UPDATE "jobs" set status = $2 where id = $1')).toEqual(['jobs']);
    expect(writtenTables('delete from only sessions where id = $1')).toEqual(['sessions']);
    expect(
      writtenTables(
        'with gone as (delete from jobs where application_id = $1) delete from applications where id = $1',
      ),
    ).toEqual(['jobs', 'applications']);
    expect(writtenTables('create index on jobs (application_id)')).toBe('all');
    expect(writtenTables('  truncate users cascade')).toBe('all');
  });
});

describe('ReadCache', () => {
  const counting = () => {
    let loads = 0;
    return { load: async () => ++loads, loads: () => loads };
  };

  it('shares concurrent misses and answers from memory until one of its tables is written', async () => {
    const versions = new TableVersions();
    const cache = new ReadCache<number>(versions, ['applications']);
    const { load } = counting();
    expect(await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)])).toEqual([
      1, 1, 1,
    ]);
    expect(await cache.get('a', load)).toBe(1);
    await versions.wrote(['jobs']); // not read by this cache
    expect(await cache.get('a', load)).toBe(1);
    await versions.wrote(['applications']);
    expect(await cache.get('a', load)).toBe(2);
    versions.bump('all');
    expect(await cache.get('a', load)).toBe(3);
    cache.evict((key) => key === 'a');
    expect(await cache.get('a', load)).toBe(4);
  });

  it('never serves an answer read while a write to its tables went on, after that write', async () => {
    const versions = new TableVersions();
    const cache = new ReadCache<string>(versions, ['jobs']);
    let finish: (value: string) => void = () => undefined;
    const slow = cache.get('k', () => new Promise<string>((resolve) => (finish = resolve)));
    await versions.wrote(['jobs']); // commits while the read is under way
    finish('before the write');
    expect(await slow).toBe('before the write');
    expect(await cache.get('k', async () => 'after the write')).toBe('after the write');
  });

  it('bounds age and size, does not remember failures, and remembers nothing while the channel is down', async () => {
    let clock = 0;
    const versions = new TableVersions();
    const cache = new ReadCache<number>(versions, ['t'], { maxAgeMs: 1000, maxEntries: 3, now: () => clock });
    const { load } = counting();
    await cache.get('a', load);
    clock = 999;
    expect(await cache.get('a', load)).toBe(1);
    clock = 1000;
    expect(await cache.get('a', load)).toBe(2);
    for (const key of ['b', 'c', 'd']) await cache.get(key, load);
    expect(cache.size).toBe(3);
    await expect(cache.get('x', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('x', async () => 42)).toBe(42);

    const channel: ChangeChannel & { live: boolean } = { live: false, announce: async () => undefined };
    versions.connect(channel);
    const down = counting();
    await cache.get('y', down.load);
    await cache.get('y', down.load);
    expect(down.loads()).toBe(2);
    channel.live = true;
    await cache.get('y', down.load);
    await cache.get('y', down.load);
    expect(down.loads()).toBe(3);
  });
});

describe('Database versions', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
    await db.exec('create table items (id int primary key, name text)');
  });
  afterAll(async () => db.close());

  it('bumps a table after a write to it commits, alone or in a transaction, and not for a read', async () => {
    const stamp = () => db.versions.stamp(['items']);
    const start = stamp();
    await db.query('select * from items');
    expect(stamp()).toBe(start);
    await db.query('insert into items values (1, $1)', ['one']);
    const afterInsert = stamp();
    expect(afterInsert).not.toBe(start);
    let inside: string | null = null;
    await db.transaction(async (tx) => {
      await tx.query('update items set name = $1 where id = 1', ['uno']);
      inside = stamp();
    });
    expect(inside).toBe(afterInsert); // not before the commit
    expect(stamp()).not.toBe(afterInsert);
  });
});
