/**
 * Per-table write counters of one database, so that reads remembered in memory (ReadCache) know
 * at once when they are stale. Every write through this process's Database bumps the tables it
 * names after it has committed; a channel (Redis pub/sub, when REDIS_URL is set) carries the bumps
 * of the other processes sharing the database, and while that channel is down nothing is remembered.
 */
export class TableVersions {
  private readonly counts = new Map<string, number>();
  /** Bumped when every table may have changed (a migration, a write of unknown shape, a lost channel). */
  private epoch = 0;
  private channel: ChangeChannel | null = null;

  /** A token of the named tables' versions now; a read started now is current while its token is. */
  stamp(tables: readonly string[]): string | null {
    if (this.channel && !this.channel.live) return null;
    let token = String(this.epoch);
    for (const table of tables) token += `:${this.counts.get(table) ?? 0}`;
    return token;
  }

  /** Called after a write has committed in this process: local readers see it now, the others via the channel. */
  async wrote(tables: readonly string[] | 'all'): Promise<void> {
    this.bump(tables);
    await this.channel?.announce(tables);
  }

  /** A write announced by another process. */
  bump(tables: readonly string[] | 'all'): void {
    if (tables === 'all') this.epoch++;
    else for (const table of tables) this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }

  /** Shares bumps with the other processes of this database through `channel` from now on (null: no longer). */
  connect(channel: ChangeChannel | null): void {
    this.channel = channel;
  }
}

/** How the processes sharing one database tell each other what they wrote. */
export interface ChangeChannel {
  /** False while bumps from elsewhere may be missed: then nothing is served from memory. */
  readonly live: boolean;
  announce(tables: readonly string[] | 'all'): Promise<void>;
}

// insert into t / update t / delete from t, anywhere in the statement (CTEs included). A `for update`
// or `do update set` also matches and bumps a table that does not exist: harmless.
const WRITE = /\b(?:insert\s+into|update|delete\s+from)\s+(?:only\s+)?"?([a-z_][a-z0-9_]*)"?/gi;
const OTHER_WRITE =
  /^\s*(?:create|alter|drop|truncate|merge|copy|do|grant|revoke|call|vacuum|reindex|cluster)\b/i;

/** The tables a statement writes ('all' when it may write anything), or null when it only reads. */
export function writtenTables(sql: string): string[] | 'all' | null {
  if (OTHER_WRITE.test(sql)) return 'all';
  const tables = new Set<string>();
  for (const match of sql.matchAll(WRITE)) tables.add(match[1]!.toLowerCase());
  return tables.size > 0 ? [...tables] : null;
}

/** Merges what the statements of one transaction wrote. */
export function mergeWrites(a: string[] | 'all' | null, b: string[] | 'all' | null): string[] | 'all' | null {
  if (a === 'all' || b === 'all') return 'all';
  if (!a) return b;
  if (!b) return a;
  return [...new Set([...a, ...b])];
}
