import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ChangeChannel, TableVersions } from './table-versions';

/** How long a write waits for Redis to take its announcement before it goes on without. */
const ANNOUNCE_WAIT_MS = 500;

/**
 * Carries the table writes of the processes sharing one database (servers, queue workers) over
 * Redis pub/sub (`REDIS_PREFIX:table-writes`). A write is announced before its caller is answered,
 * so a reply that follows it (a revoked session, a new application) is not contradicted by another
 * process's memory. The channel is live only while subscribed: from a disconnect until the
 * subscription is back nothing is remembered, and then everything remembered before is dropped.
 */
export class RedisChangeChannel implements ChangeChannel {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  /** This process's name on the channel: its own announcements are already counted. */
  private readonly origin = randomUUID();
  private subscribed = false;

  constructor(redisUrl: string, prefix: string, versions: TableVersions) {
    this.channel = `${prefix}:table-writes`;
    this.publisher = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    this.subscriber = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          // Writes made while away were missed: nothing remembered before is trusted.
          versions.bump('all');
          this.subscribed = true;
        },
        () => undefined,
      );
    });
    this.subscriber.on('close', () => {
      this.subscribed = false;
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const data = JSON.parse(message) as { origin: string; tables: string[] | 'all' };
      if (data.origin !== this.origin) versions.bump(data.tables);
    });
    // Failures are told by `live` and the memory's bypass; ioredis reconnects by itself.
    this.publisher.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
  }

  get live(): boolean {
    return this.subscribed;
  }

  async announce(tables: readonly string[] | 'all'): Promise<void> {
    const sent = this.publisher
      .publish(this.channel, JSON.stringify({ origin: this.origin, tables }))
      .catch(() => undefined);
    // Redis away: the announcement waits in the client's queue; the write does not wait for it.
    if (this.publisher.status !== 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      sent,
      new Promise((resolve) => (timer = setTimeout(resolve, ANNOUNCE_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
  }

  close(): void {
    this.subscribed = false;
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
