/**
 * A short-lived, size-bounded memory of resolved sessions, so a burst of requests with one token
 * costs one database query instead of one per request. An entry lives `ttlMs` at most: a session
 * revoked elsewhere (another server, a password change) stops working within that window; one
 * revoked through this process is evicted at once. Concurrent misses for one key share one lookup.
 */
export class SessionCache<V> {
  private readonly entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    if (hit) this.entries.delete(key);
    const value = load();
    this.entries.set(key, { at: this.now(), value });
    // A failed lookup (database down) is not remembered.
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    if (this.entries.size > this.maxEntries) this.evictOldest();
    return value;
  }

  /** Forgets the entries whose key matches (one session, or every session of a user). */
  evict(matches: (key: string) => boolean): void {
    for (const key of this.entries.keys()) if (matches(key)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private evictOldest() {
    // Map iteration follows insertion order: the first keys are the oldest.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
