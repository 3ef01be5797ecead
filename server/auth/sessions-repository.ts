import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database';

export class SessionsRepository {
  constructor(private readonly db: Queryable) {}

  async create(userId: number, ttlSeconds: number): Promise<string> {
    const id = randomUUID();
    await this.db.query(
      `insert into sessions (id, user_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))`,
      [id, userId, ttlSeconds],
    );
    return id;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db.query(`update sessions set revoked_at = now() where id = $1 and revoked_at is null`, [
      sessionId,
    ]);
  }
}
