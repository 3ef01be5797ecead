import type { AccountIdentity } from './account-schemas';
import type { Queryable } from '../db/database';

export interface UserRecord extends AccountIdentity {
  password_hash: string | null;
  /** Set by an admin (disable); such an account may not sign in. */
  disabled: boolean;
  /** The registration was rejected by an admin. */
  rejected: boolean;
}

/** What the profile adds to the sign-in record (GET /users/me, PUT /users/{id}). */
export interface ProfileRecord extends UserRecord {
  dob: string | null;
  image_url: string | null;
  provided_timezone: string | null;
  /** The quantum-provider token as stored: encrypted (server/accounts/token-cipher.ts). */
  custom_ibmq_token_encrypted: string | null;
}

/** The profile columns PUT /users/{id} may change; absent keys stay as they are. */
export interface ProfileChanges {
  name?: string;
  dob?: string | null;
  image_url?: string | null;
  provided_timezone?: string | null;
  custom_ibmq_token_encrypted?: string | null;
  password_hash?: string;
}

const SELECT_USER = `
  select u.id, u.name, u.email, u.password_hash, u.email_verified, u.is_approved,
         u.disabled_at is not null as disabled, u.rejected_at is not null as rejected,
         coalesce(array_agg(r.name order by r.name) filter (where r.name is not null), '{}') as roles
  from users u
  left join user_roles ur on ur.user_id = u.id
  left join roles r on r.id = ur.role_id`;

export class UsersRepository {
  constructor(private readonly db: Queryable) {}

  async findByEmail(email: string): Promise<UserRecord | null> {
    const { rows } = await this.db.query<UserRecord>(
      `${SELECT_USER} where lower(u.email) = lower($1) group by u.id`,
      [email],
    );
    return rows[0] ?? null;
  }

  async findById(id: number): Promise<UserRecord | null> {
    const { rows } = await this.db.query<UserRecord>(`${SELECT_USER} where u.id = $1 group by u.id`, [id]);
    return rows[0] ?? null;
  }

  /**
   * The user behind a session, in one query, when the session belongs to that user and is neither
   * expired nor revoked (every authenticated request asks this).
   */
  async findBySession(sessionId: string, userId: number): Promise<UserRecord | null> {
    const { rows } = await this.db.query<UserRecord>(
      `${SELECT_USER}
       join sessions s on s.user_id = u.id
       where s.id = $1 and u.id = $2 and s.revoked_at is null and s.expires_at > now()
       group by u.id`,
      [sessionId, userId],
    );
    return rows[0] ?? null;
  }

  async countAdmins(): Promise<number> {
    const { rows } = await this.db.query<{ count: number }>(
      `select count(*)::int as count from user_roles ur join roles r on r.id = ur.role_id where r.name = 'admin'`,
    );
    return rows[0]?.count ?? 0;
  }

  /** Creates a verified, approved user with the given roles, in one transaction. */
  async createActivated(
    tx: Queryable,
    input: { name: string; email: string; passwordHash: string; roles: string[] },
  ): Promise<number> {
    const { rows } = await tx.query<{ id: number }>(
      `insert into users (name, email, password_hash, email_verified, is_approved)
       values ($1, $2, $3, true, true) returning id`,
      [input.name, input.email, input.passwordHash],
    );
    const id = rows[0]!.id;
    await tx.query(
      `insert into user_roles (user_id, role_id) select $1, id from roles where name = any($2::text[])`,
      [id, input.roles],
    );
    return id;
  }

  /** A new account waiting for verification and approval, with no role; null when the e-mail is taken. */
  async createPending(input: { name: string; email: string; passwordHash: string }): Promise<number | null> {
    try {
      const { rows } = await this.db.query<{ id: number }>(
        `insert into users (name, email, password_hash) values ($1, $2, $3) returning id`,
        [input.name, input.email, input.passwordHash],
      );
      return Number(rows[0]!.id);
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return null; // users_email_lower
      throw error;
    }
  }

  async findProfile(id: number): Promise<ProfileRecord | null> {
    const { rows } = await this.db.query<ProfileRecord>(
      `select p.*, to_char(u.dob, 'YYYY-MM-DD') as dob, u.image_url, u.provided_timezone,
              u.custom_ibmq_token_encrypted
       from (${SELECT_USER} where u.id = $1 group by u.id) p join users u on u.id = p.id`,
      [id],
    );
    return rows[0] ?? null;
  }

  async updateProfile(id: number, changes: ProfileChanges): Promise<void> {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return;
    // Column names come from ProfileChanges' keys (never from the request); values are parameters.
    const sets = entries.map(([column], i) => `${column} = $${i + 2}`);
    await this.db.query(`update users set ${sets.join(', ')}, updated_at = now() where id = $1`, [
      id,
      ...entries.map(([, v]) => v),
    ]);
  }

  /** Stores the hash of a single-use verification token for the user. */
  async addVerificationToken(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
    await this.db.query(
      `insert into email_verification_tokens (token_hash, user_id, expires_at) values ($1, $2, $3)`,
      [tokenHash, userId, expiresAt.toISOString()],
    );
  }

  /**
   * Uses a verification token (once, before it expires) and marks the e-mail verified, in one
   * statement; the user's id, or null for an unknown, used or expired token.
   */
  async consumeVerificationToken(tokenHash: string): Promise<number | null> {
    const { rows } = await this.db.query<{ id: number }>(
      `with used as (
         update email_verification_tokens set used_at = now()
         where token_hash = $1 and used_at is null and expires_at > now()
         returning user_id)
       update users set email_verified = true, email_verified_at = coalesce(email_verified_at, now()),
                        updated_at = now()
       where id = (select user_id from used) returning id`,
      [tokenHash],
    );
    return rows[0] ? Number(rows[0].id) : null;
  }

  /** Ends every session of the user except `keepSessionId` (a password change). */
  async revokeOtherSessions(userId: number, keepSessionId: string | null): Promise<void> {
    await this.db.query(
      `update sessions set revoked_at = now()
       where user_id = $1 and revoked_at is null and ($2::text is null or id::text <> $2::text)`,
      [userId, keepSessionId],
    );
  }
}
