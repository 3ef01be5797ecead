import type { AccountIdentity } from '../auth/account-schemas';
import type { Queryable } from '../db/database';

/** Where an account stands, as the admin console groups it; each account is in exactly one group. */
export const ACCOUNT_STATUSES = [
  'pending-verification',
  'pending-approval',
  'approved',
  'rejected',
  'disabled',
] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export interface AdminUserRecord extends AccountIdentity {
  status: AccountStatus;
  created_at: string;
  approved_at: string | null;
  rejected_at: string | null;
  disabled_at: string | null;
}

// The one place the groups are decided: disabled first, then rejected, approved, verified.
const STATUS_SQL = `
  case
    when u.disabled_at is not null then 'disabled'
    when u.rejected_at is not null then 'rejected'
    when u.is_approved then 'approved'
    when u.email_verified then 'pending-approval'
    else 'pending-verification'
  end`;

const SELECT_ADMIN_USER = `
  select * from (
    select u.id, u.name, u.email, u.email_verified, u.is_approved, u.created_at, u.approved_at,
           u.rejected_at, u.disabled_at, ${STATUS_SQL} as status,
           coalesce(array_agg(r.name order by r.name) filter (where r.name is not null), '{}') as roles
    from users u
    left join user_roles ur on ur.user_id = u.id
    left join roles r on r.id = ur.role_id
    group by u.id
  ) listed`;

// Serialises changes that could leave no usable admin (two admins demoting each other at once).
const ADMIN_GUARD_LOCK = 740_051;

/** The SQL of the admin console over users, sessions and the mail outbox. */
export class AdminUsersRepository {
  constructor(private readonly db: Queryable) {}

  async list(status: AccountStatus | undefined, db: Queryable = this.db): Promise<AdminUserRecord[]> {
    const { rows } = await db.query<AdminUserRecord>(
      `${SELECT_ADMIN_USER} where $1::text is null or status = $1 order by id`,
      [status ?? null],
    );
    return rows;
  }

  async find(id: number, db: Queryable = this.db): Promise<AdminUserRecord | null> {
    const { rows } = await db.query<AdminUserRecord>(`${SELECT_ADMIN_USER} where id = $1`, [id]);
    return rows[0] ?? null;
  }

  async knownRoles(db: Queryable = this.db): Promise<string[]> {
    const { rows } = await db.query<{ name: string }>('select name from roles order by name');
    return rows.map((row) => row.name);
  }

  /** Takes the guard for the rest of the transaction (see ADMIN_GUARD_LOCK). */
  async lockAdminGuard(tx: Queryable): Promise<void> {
    await tx.query('select pg_advisory_xact_lock($1)', [ADMIN_GUARD_LOCK]);
  }

  /** Admins who can still act: holding the role and neither disabled nor rejected. */
  async activeAdminIds(tx: Queryable): Promise<number[]> {
    const { rows } = await tx.query<{ id: number }>(
      `select u.id from users u
       join user_roles ur on ur.user_id = u.id
       join roles r on r.id = ur.role_id
       where r.name = 'admin' and u.disabled_at is null and u.rejected_at is null`,
    );
    return rows.map((row) => Number(row.id));
  }

  /** Approval grants the role `user` and lifts an earlier rejection. */
  async approve(tx: Queryable, id: number): Promise<void> {
    await tx.query(
      `update users set is_approved = true, approved_at = now(), rejected_at = null, updated_at = now()
       where id = $1`,
      [id],
    );
    await tx.query(
      `insert into user_roles (user_id, role_id) select $1, id from roles where name = 'user'
       on conflict do nothing`,
      [id],
    );
  }

  async reject(tx: Queryable, id: number): Promise<void> {
    await tx.query(
      `update users set is_approved = false, approved_at = null, rejected_at = now(), updated_at = now()
       where id = $1`,
      [id],
    );
  }

  /** Marks the e-mail verified; links still outstanding are spent (they have nothing left to do). */
  async markEmailVerified(tx: Queryable, id: number): Promise<void> {
    await tx.query(
      `update users set email_verified = true, email_verified_at = coalesce(email_verified_at, now()),
       updated_at = now() where id = $1`,
      [id],
    );
    await tx.query(
      `update email_verification_tokens set used_at = now() where user_id = $1 and used_at is null`,
      [id],
    );
  }

  async setDisabled(tx: Queryable, id: number, disabled: boolean): Promise<void> {
    await tx.query(
      `update users set disabled_at = case when $2 then coalesce(disabled_at, now()) end, updated_at = now()
       where id = $1`,
      [id, disabled],
    );
  }

  /** Replaces the user's roles with the given (known) role names. */
  async setRoles(tx: Queryable, id: number, roles: string[]): Promise<void> {
    await tx.query('delete from user_roles where user_id = $1', [id]);
    await tx.query(
      `insert into user_roles (user_id, role_id) select $1, id from roles where name = any($2::text[])`,
      [id, roles],
    );
  }

  /** Ends every session of the user. */
  async revokeSessions(tx: Queryable, id: number): Promise<void> {
    await tx.query(`update sessions set revoked_at = now() where user_id = $1 and revoked_at is null`, [id]);
  }

  /** The newest mail the embedded default kept, newest first. */
  async outbox(limit: number): Promise<OutboxRecord[]> {
    const { rows } = await this.db.query<OutboxRecord>(
      `select id, recipient, subject, body, kind, created_at, sent_at from mail_outbox
       order by id desc limit $1`,
      [limit],
    );
    return rows;
  }
}

export interface OutboxRecord {
  id: number;
  recipient: string;
  subject: string;
  body: string;
  kind: string | null;
  created_at: string;
  sent_at: string | null;
}
