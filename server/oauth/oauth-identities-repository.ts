import type { Queryable } from '../db/database';

/** Social identities (provider + subject) and the accounts they sign in to. */
export class OAuthIdentitiesRepository {
  constructor(private readonly db: Queryable) {}

  async findUserId(provider: string, subject: string, db: Queryable = this.db): Promise<number | null> {
    const { rows } = await db.query<{ user_id: number }>(
      `select user_id from oauth_identities where provider = $1 and subject = $2`,
      [provider, subject],
    );
    return rows[0] ? Number(rows[0].user_id) : null;
  }

  async link(tx: Queryable, input: { provider: string; subject: string; userId: number; email: string }) {
    await tx.query(
      `insert into oauth_identities (provider, subject, user_id, email) values ($1, $2, $3, $4)
       on conflict (provider, subject) do nothing`,
      [input.provider, input.subject, input.userId, input.email],
    );
  }

  /** The account with this address (any case), locked for the linking transaction. */
  async findAccountByEmail(
    tx: Queryable,
    email: string,
  ): Promise<{ id: number; emailVerified: boolean } | null> {
    const { rows } = await tx.query<{ id: number; email_verified: boolean }>(
      `select id, email_verified from users where lower(email) = lower($1) for update`,
      [email],
    );
    return rows[0] ? { id: Number(rows[0].id), emailVerified: rows[0].email_verified } : null;
  }

  /**
   * The provider has verified the address of an account whose owner never did. Whoever set that
   * account's password had not proved the address is theirs, so the password goes: otherwise
   * registering someone else's address first would keep a way into their account.
   */
  async adoptUnverifiedAccount(tx: Queryable, userId: number): Promise<void> {
    await tx.query(
      `update users set email_verified = true, email_verified_at = now(), password_hash = null,
              updated_at = now()
       where id = $1`,
      [userId],
    );
    await tx.query(`update sessions set revoked_at = now() where user_id = $1 and revoked_at is null`, [
      userId,
    ]);
  }

  /** A new account for a social identity: the provider verified the address; approval is still due. */
  async createAccount(tx: Queryable, input: { name: string; email: string }): Promise<number> {
    const { rows } = await tx.query<{ id: number }>(
      `insert into users (name, email, password_hash, email_verified, email_verified_at, is_approved)
       values ($1, $2, null, true, now(), false) returning id`,
      [input.name, input.email],
    );
    return Number(rows[0]!.id);
  }
}
