import type { TableVersions } from './table-versions';

/**
 * Query answers remembered while the tables they read are unwritten (see TableVersions): a burst of
 * identical reads costs one query, and any write to those tables — in this process or, with Redis,
 * in any process sharing the database — makes the next read query again. The version token is taken
 * before the query starts, so an answer read before a write that committed meanwhile is never
 * served after it. `maxAgeMs` bounds the life of an entry in any case; `maxEntries` its memory.
 * Concurrent misses of one key share one query; a failed query is not remembered.
 */
export class ReadCache<V> {
  private readonly entries = new Map<string, { stamp: string; at: number; value: Promise<V> }>();

  constructor(
    private readonly versions: TableVersions,
    private readonly tables: readonly string[],
    private readonly options: { maxAgeMs?: number; maxEntries?: number; now?: () => number } = {},
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const stamp = this.versions.stamp(this.tables);
    if (stamp === null) return load();
    const now = (this.options.now ?? Date.now)();
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp && now - hit.at < (this.options.maxAgeMs ?? 5_000)) return hit.value;
    if (hit) this.entries.delete(key);
    const value = load();
    const entry = { stamp, at: now, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size > (this.options.maxEntries ?? 10_000)) {
      // Map iteration follows insertion order: the first key is the oldest.
      this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  /** Forgets the entries whose key matches. */
  evict(matches: (key: string) => boolean): void {
    for (const key of this.entries.keys()) if (matches(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
