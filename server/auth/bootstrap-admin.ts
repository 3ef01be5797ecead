import { randomBytes } from 'node:crypto';
import type { Database } from '../db/database';
import { hashPassword } from './passwords';
import { UsersRepository } from './users-repository';

export interface BootstrapResult {
  created: boolean;
  email?: string;
  /** Set only when the password was generated here; it is printed once and never stored in clear. */
  generatedPassword?: string;
}

/** Creates the first admin account when none exists, from ADMIN_EMAIL / ADMIN_PASSWORD or generated. */
export async function bootstrapAdmin(
  db: Database,
  options: { adminEmail: string | null; adminPassword: string | null },
): Promise<BootstrapResult> {
  const users = new UsersRepository(db);
  if ((await users.countAdmins()) > 0) return { created: false };
  // The sign-in form wants a dotted domain, so the default is not admin@localhost.
  const email = options.adminEmail ?? 'admin@qmlstudio.local';
  const generatedPassword = options.adminPassword ? undefined : randomBytes(12).toString('base64url');
  const password = options.adminPassword ?? generatedPassword!;
  const existing = await users.findByEmail(email);
  if (existing) {
    throw new Error(`ADMIN_EMAIL ${email} belongs to an existing user who is not an admin`);
  }
  const passwordHash = await hashPassword(password);
  await db.transaction((tx) =>
    users.createActivated(tx, { name: 'admin', email, passwordHash, roles: ['admin', 'user'] }),
  );
  return { created: true, email, generatedPassword };
}
