import { describe, expect, it } from 'vitest';
import { bootstrapAdmin } from './bootstrap-admin';
import { UsersRepository } from './users-repository';
import { verifyPassword } from './passwords';
import { migratedMemoryDatabase } from '../test-support/harness';

describe('first admin', () => {
  it('is created once, with a generated password when none is given', async () => {
    const db = await migratedMemoryDatabase();
    const first = await bootstrapAdmin(db, { adminEmail: null, adminPassword: null });
    expect(first).toMatchObject({ created: true, email: 'admin@qmlstudio.local' });
    expect(first.generatedPassword!.length).toBeGreaterThanOrEqual(16);
    const admin = (await new UsersRepository(db).findByEmail('admin@qmlstudio.local'))!;
    expect(admin).toMatchObject({ email_verified: true, is_approved: true, roles: ['admin', 'user'] });
    expect(await verifyPassword(admin.password_hash!, first.generatedPassword!)).toBe(true);
    expect(
      await bootstrapAdmin(db, { adminEmail: 'other@example.com', adminPassword: 'another password' }),
    ).toEqual({
      created: false,
    });
    await db.close();
  });

  it('takes ADMIN_EMAIL and ADMIN_PASSWORD and prints no password', async () => {
    const db = await migratedMemoryDatabase();
    const result = await bootstrapAdmin(db, {
      adminEmail: 'root@example.com',
      adminPassword: 'a long password',
    });
    expect(result).toEqual({ created: true, email: 'root@example.com', generatedPassword: undefined });
    await db.close();
  });
});
