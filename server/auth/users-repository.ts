import type { Queryable } from '../db/database';

export interface UserRecord {
  id: number;
  name: string;
  email: string;
  password_hash: string | null;
  email_verified: boolean;
  is_approved: boolean;
  roles: string[];
}

const SELECT_USER = `
  select u.id, u.name, u.email, u.password_hash, u.email_verified, u.is_approved,
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
}
