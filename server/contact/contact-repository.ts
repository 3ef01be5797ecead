import type { Database } from '../db/database';

/** The SQL of the contact form: the kept messages and the admins who receive them. */
export class ContactRepository {
  constructor(private readonly db: Database) {}

  async store(input: { userId: number; name: string; email: string; message: string }): Promise<number> {
    const { rows } = await this.db.query<{ id: number }>(
      `insert into contact_messages (user_id, name, email, message) values ($1, $2, $3, $4) returning id`,
      [input.userId, input.name, input.email, input.message],
    );
    return Number(rows[0]!.id);
  }

  /** The e-mail addresses of the admins who can act: holding the role, neither disabled nor rejected. */
  async adminEmails(): Promise<string[]> {
    const { rows } = await this.db.query<{ email: string }>(
      `select distinct u.email from users u
       join user_roles ur on ur.user_id = u.id
       join roles r on r.id = ur.role_id
       where r.name = 'admin' and u.disabled_at is null and u.rejected_at is null
       order by u.email`,
    );
    return rows.map((row) => row.email);
  }
}
