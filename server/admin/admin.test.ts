import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords';
import { ADMIN, bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import {
  ALREADY_APPROVED,
  ALREADY_REJECTED,
  ALREADY_VERIFIED,
  OWN_ACCOUNT_DISABLE,
  OWN_ACCOUNT_REJECT,
  LAST_ADMIN_ROLE,
} from './admin-service';
import { USER_NOT_FOUND } from '../accounts/accounts-service';

const PASSWORD = 'a registered password';

interface AdminUser {
  id: number;
  email: string;
  status: string;
  roles: string[];
  email_verified: boolean;
  is_approved: boolean;
}
interface Mail {
  recipient: string;
  subject: string;
  body: string;
  kind: string | null;
}

/** A registered account as registration leaves it: unverified, unapproved, no role. */
async function register(stack: TestStack, email: string): Promise<number> {
  const { rows } = await stack.services.db.query<{ id: number }>(
    `insert into users (name, email, password_hash) values ($1, $2, $3) returning id`,
    [email.split('@')[0], email, await hashPassword(PASSWORD)],
  );
  return Number(rows[0]!.id);
}

const login = (stack: TestStack, email: string) =>
  stack.app.inject({ method: 'POST', url: '/api/login', payload: { username: email, password: PASSWORD } });

const tokenOf = async (stack: TestStack, email: string) => {
  const reply = await login(stack, email);
  expect(reply.statusCode, reply.body).toBe(200);
  return (reply.json() as { data: { access_token: string } }).data.access_token;
};

describe.each(MODES.filter((m) => m.queue === 'in-process'))('the admin console API on $database', (mode) => {
  let stack: TestStack;
  const act = (id: number, action: string, token = stack.adminToken) =>
    stack.app.inject({ method: 'POST', url: `/api/admin/users/${id}/${action}`, headers: bearer(token) });
  const setRoles = (id: number, roles: unknown, token = stack.adminToken) =>
    stack.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${id}/roles`,
      headers: bearer(token),
      payload: { roles },
    });
  const listed = async (status: string) => {
    const reply = await stack.app.inject({
      url: `/api/admin/users?status=${status}`,
      headers: bearer(stack.adminToken),
    });
    expect(reply.statusCode).toBe(200);
    return (reply.json() as { data: { users: AdminUser[] } }).data.users.map((u) => u.email);
  };
  const outbox = async () => {
    const reply = await stack.app.inject({ url: '/api/admin/outbox', headers: bearer(stack.adminToken) });
    expect(reply.statusCode).toBe(200);
    return (reply.json() as { data: { mode: string; messages: Mail[] } }).data;
  };
  const adminId = async () =>
    Number(
      (await stack.services.db.query<{ id: number }>('select id from users where email = $1', [ADMIN.email]))
        .rows[0]!.id,
    );

  beforeAll(async () => {
    if (mode.available) stack = await startStack(mode);
  });
  afterAll(async () => stack?.close());

  it.skipIf(!mode.available)(
    'walks a registration through verification and approval; approval grants `user` and e-mails the user',
    async () => {
      const id = await register(stack, 'newcomer@example.com');
      expect(await listed('pending-verification')).toContain('newcomer@example.com');
      expect(await listed('pending-approval')).not.toContain('newcomer@example.com');

      const verified = await act(id, 'verify-email');
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toMatchObject({
        success: true,
        message: 'E-mail address marked as verified.',
        data: { id, email_verified: true, status: 'pending-approval', roles: [] },
      });
      expect(await listed('pending-approval')).toContain('newcomer@example.com');
      // Verified but not approved: the sign-in gate still holds.
      expect((await login(stack, 'newcomer@example.com')).statusCode).toBe(403);

      const approved = await act(id, 'approve');
      expect(approved.statusCode).toBe(200);
      expect(approved.json()).toMatchObject({
        message: 'User approved.',
        data: { is_approved: true, status: 'approved', roles: ['user'] },
      });
      expect(await listed('approved')).toContain('newcomer@example.com');
      expect(await listed('pending-approval')).not.toContain('newcomer@example.com');

      const { mode: mailMode, messages } = await outbox();
      expect(mailMode).toBe('outbox');
      expect(messages[0]).toMatchObject({ recipient: 'newcomer@example.com', kind: 'approval' });
      expect(messages[0]!.body).toContain(`${stack.config.publicUrl}/approved-account`);

      // A second approval (a double click, a second admin) is refused and mails nobody.
      const twice = await act(id, 'approve');
      expect(twice.statusCode).toBe(409);
      expect(twice.json()).toEqual({ success: false, detail: ALREADY_APPROVED });
      expect((await outbox()).messages.filter((m) => m.recipient === 'newcomer@example.com')).toHaveLength(1);

      // The approved user signs in and is an ordinary user: the admin API is closed to them.
      const token = await tokenOf(stack, 'newcomer@example.com');
      expect((await stack.app.inject({ url: '/api/admin/users', headers: bearer(token) })).statusCode).toBe(
        403,
      );
      expect((await act(id, 'approve', token)).statusCode).toBe(403);
    },
  );

  it.skipIf(!mode.available)(
    'sends a fresh verification link that works; a verified address gets none',
    async () => {
      const id = await register(stack, 'unverified@example.com');
      const sent = await act(id, 'send-verification');
      expect(sent.statusCode).toBe(200);
      expect(sent.json()).toMatchObject({
        message: 'Verification e-mail sent.',
        data: { id, email_verified: false },
      });
      const mail = (await outbox()).messages[0]!;
      expect(mail).toMatchObject({ recipient: 'unverified@example.com', kind: 'verification' });
      const link = /https?:\/\/\S+verify-email\?token=\S+/.exec(mail.body)![0];
      const opened = await stack.app.inject({ url: link.slice(link.indexOf('/api/')) });
      expect(opened.statusCode).toBe(302);
      expect(opened.headers.location).toBe(`${stack.config.publicUrl}/email-verified`);
      expect(await listed('pending-approval')).toContain('unverified@example.com');

      const again = await act(id, 'send-verification');
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ success: false, detail: ALREADY_VERIFIED });
      expect((await outbox()).messages[0]!.body).toBe(mail.body);
    },
  );

  it.skipIf(!mode.available)('rejects a registration: its sessions end and the user is told', async () => {
    const id = await register(stack, 'declined@example.com');
    await act(id, 'verify-email');
    await act(id, 'approve');
    const token = await tokenOf(stack, 'declined@example.com');
    const rejected = await act(id, 'reject');
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({
      message: 'User rejected.',
      data: { is_approved: false, status: 'rejected' },
    });
    expect(await listed('rejected')).toContain('declined@example.com');
    expect((await act(id, 'reject')).json()).toEqual({ success: false, detail: ALREADY_REJECTED });
    expect(await listed('approved')).not.toContain('declined@example.com');
    expect((await stack.app.inject({ url: '/api/users/me', headers: bearer(token) })).statusCode).toBe(401);
    expect((await outbox()).messages[0]).toMatchObject({
      recipient: 'declined@example.com',
      kind: 'rejection',
      subject: 'Your QML Studio registration was not approved',
    });
    // A later approval lifts the rejection.
    expect((await act(id, 'approve')).json()).toMatchObject({ data: { status: 'approved' } });
  });

  it.skipIf(!mode.available)(
    'disabling ends every session at once; enabling restores the account',
    async () => {
      const id = await register(stack, 'paused@example.com');
      await act(id, 'verify-email');
      await act(id, 'approve');
      const first = await tokenOf(stack, 'paused@example.com');
      const second = await tokenOf(stack, 'paused@example.com');
      for (const token of [first, second]) {
        expect((await stack.app.inject({ url: '/api/users/me', headers: bearer(token) })).statusCode).toBe(
          200,
        );
      }
      const disabled = await act(id, 'disable');
      expect(disabled.json()).toMatchObject({ message: 'User disabled.', data: { status: 'disabled' } });
      expect(await listed('disabled')).toContain('paused@example.com');
      for (const token of [first, second]) {
        expect((await stack.app.inject({ url: '/api/users/me', headers: bearer(token) })).statusCode).toBe(
          401,
        );
      }
      const enabled = await act(id, 'enable');
      expect(enabled.json()).toMatchObject({ message: 'User enabled.', data: { status: 'approved' } });
      expect(await listed('disabled')).not.toContain('paused@example.com');
      await tokenOf(stack, 'paused@example.com');
    },
  );

  it.skipIf(!mode.available)(
    'sets roles; a promotion counts at once; unknown roles are field errors',
    async () => {
      const id = await register(stack, 'promoted@example.com');
      await act(id, 'verify-email');
      await act(id, 'approve');
      const token = await tokenOf(stack, 'promoted@example.com');
      expect((await stack.app.inject({ url: '/api/admin/outbox', headers: bearer(token) })).statusCode).toBe(
        403,
      );

      const promoted = await setRoles(id, ['user', 'admin', 'admin']);
      expect(promoted.statusCode).toBe(200);
      expect(promoted.json()).toMatchObject({
        message: 'Roles updated.',
        data: { roles: ['admin', 'user'] },
      });
      // The same token, no new sign-in: the cached session was forgotten.
      expect((await stack.app.inject({ url: '/api/admin/outbox', headers: bearer(token) })).statusCode).toBe(
        200,
      );

      const unknown = await setRoles(id, ['user', 'superuser']);
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toEqual({
        success: false,
        detail: 'Unknown role "superuser"',
        errors: [{ field: '/roles/1', message: 'Unknown role "superuser"' }],
      });
      const notAList = await setRoles(id, { admin: true });
      expect(notAList.statusCode).toBe(400);
      expect(notAList.json()).toMatchObject({ errors: [{ field: '/roles' }] });

      expect((await setRoles(id, ['user'])).json()).toMatchObject({ data: { roles: ['user'] } });
      expect((await stack.app.inject({ url: '/api/admin/outbox', headers: bearer(token) })).statusCode).toBe(
        403,
      );
    },
  );

  it.skipIf(!mode.available)('never removes the last admin who can act', async () => {
    const self = await adminId();
    const demoted = await setRoles(self, ['user']);
    expect(demoted.statusCode).toBe(409);
    expect(demoted.json()).toEqual({ success: false, detail: LAST_ADMIN_ROLE });
    // Nothing changed: the admin still holds the role and can act.
    expect(
      (await stack.app.inject({ url: '/api/admin/users', headers: bearer(stack.adminToken) })).statusCode,
    ).toBe(200);

    // With a second admin, the first may step down; then the second is the last one.
    const other = await register(stack, 'second-admin@example.com');
    await act(other, 'verify-email');
    await act(other, 'approve');
    await setRoles(other, ['admin', 'user']);
    const otherToken = await tokenOf(stack, 'second-admin@example.com');
    expect((await setRoles(self, ['user'], otherToken)).statusCode).toBe(200);
    expect((await act(other, 'disable', otherToken)).statusCode).toBe(400); // their own account
    // A disabled admin does not count as one who can act.
    const third = await register(stack, 'third-admin@example.com');
    await setRoles(third, ['admin'], otherToken);
    expect((await act(third, 'disable', otherToken)).statusCode).toBe(200);
    expect((await setRoles(other, ['user'], otherToken)).json()).toEqual({
      success: false,
      detail: LAST_ADMIN_ROLE,
    });
    // The first admin's token still works once the role is back (a role change ends no session).
    expect((await setRoles(self, ['admin', 'user'], otherToken)).statusCode).toBe(200);
    expect(
      (await stack.app.inject({ url: '/api/admin/users', headers: bearer(stack.adminToken) })).statusCode,
    ).toBe(200);
  });

  it.skipIf(!mode.available)(
    'an admin cannot reject or disable their own account, even with another admin to act',
    async () => {
      const self = await adminId();
      const colleague = await register(stack, 'colleague-admin@example.com');
      await act(colleague, 'verify-email');
      await act(colleague, 'approve');
      expect((await setRoles(colleague, ['admin', 'user'])).statusCode).toBe(200);
      for (const [action, detail] of [
        ['disable', OWN_ACCOUNT_DISABLE],
        ['reject', OWN_ACCOUNT_REJECT],
      ] as const) {
        const refused = await act(self, action);
        expect(refused.statusCode, action).toBe(400);
        expect(refused.json()).toEqual({
          success: false,
          detail,
          errors: [{ field: '/id', message: detail }],
        });
      }
      // Nothing changed: the admin is approved, enabled and still signed in.
      const me = (await stack.services.admin.list('approved')).find((u) => u.id === self)!;
      expect(me.disabled_at).toBeNull();
      expect(
        (await stack.app.inject({ url: '/api/admin/users', headers: bearer(stack.adminToken) })).statusCode,
      ).toBe(200);
      // Only one's own account is refused: the colleague is refused theirs, and may be disabled by the admin.
      const colleagueToken = await tokenOf(stack, 'colleague-admin@example.com');
      expect((await act(colleague, 'disable', colleagueToken)).statusCode).toBe(400);
      expect((await act(colleague, 'disable')).statusCode).toBe(200);
      expect((await act(colleague, 'enable')).statusCode).toBe(200);
      expect((await setRoles(colleague, ['user'])).statusCode).toBe(200);
    },
  );

  it.skipIf(!mode.available)('refuses strangers and unknown accounts', async () => {
    const id = await register(stack, 'target@example.com');
    const anonymous = await stack.app.inject({ method: 'POST', url: `/api/admin/users/${id}/approve` });
    expect(anonymous.statusCode).toBe(401);
    expect((await stack.app.inject({ url: '/api/admin/outbox' })).statusCode).toBe(401);
    for (const action of ['approve', 'reject', 'verify-email', 'send-verification', 'disable', 'enable']) {
      const missing = await act(2147483000, action);
      expect(missing.statusCode, action).toBe(404);
      expect(missing.json()).toEqual({ success: false, detail: USER_NOT_FOUND });
    }
    expect((await setRoles(2147483000, ['user'])).statusCode).toBe(404);
    const badStatus = await stack.app.inject({
      url: '/api/admin/users?status=everyone',
      headers: bearer(stack.adminToken),
    });
    expect(badStatus.statusCode).toBe(400);
    expect(badStatus.json()).toMatchObject({ errors: [{ field: '/status' }] });
    // Nothing happened to the target.
    expect(await listed('pending-verification')).toContain('target@example.com');
  });

  it.skipIf(!mode.available)('two admins demoting each other at once leave one admin', async () => {
    const self = await adminId();
    const other = Number(
      (
        await stack.services.db.query<{ id: number }>('select id from users where email = $1', [
          'second-admin@example.com',
        ])
      ).rows[0]!.id,
    );
    await setRoles(other, ['admin', 'user']);
    const otherToken = await tokenOf(stack, 'second-admin@example.com');
    const replies = await Promise.all([setRoles(other, ['user']), setRoles(self, ['user'], otherToken)]);
    // The loser is refused by the guard (409) or, when the winner was quicker, is no admin any more (403).
    const statuses = replies.map((r) => r.statusCode).sort();
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    // Whichever request won, its sender is the one admin left (asked of the database: the loser's
    // token may no longer open the admin API).
    const survivors = await stack.services.admin.list('approved');
    expect(survivors.filter((u) => u.roles.includes('admin'))).toHaveLength(1);
  });
});

describe('decision mail through SMTP', () => {
  let stack: TestStack;
  let sink: SMTPServer;
  const received: string[] = [];
  beforeAll(async () => {
    sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push(data);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const port = (sink.server.address() as AddressInfo).port;
    stack = await startStack(
      { database: 'pglite', queue: 'in-process' },
      { SMTP_URL: `smtp://127.0.0.1:${port}` },
    );
  });
  afterAll(async () => {
    await stack?.close();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  });

  it('sends the approval mail to the user and keeps nothing in the outbox', async () => {
    const id = await register(stack, 'mailed@example.com');
    expect(
      (
        await stack.app.inject({
          method: 'POST',
          url: `/api/admin/users/${id}/approve`,
          headers: bearer(stack.adminToken),
        })
      ).statusCode,
    ).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]).toContain('To: mailed@example.com');
    expect(received[0]).toContain('Subject: Your QML Studio account is approved');
    const reply = await stack.app.inject({ url: '/api/admin/outbox', headers: bearer(stack.adminToken) });
    expect(reply.json()).toEqual({ success: true, data: { mode: 'smtp', messages: [] } });
  });
});

describe('decision mail that cannot be delivered', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // Nothing listens on port 1: the SMTP connection is refused.
    stack = await startStack({ database: 'pglite', queue: 'in-process' }, { SMTP_URL: 'smtp://127.0.0.1:1' });
  });
  afterAll(async () => stack?.close());

  it('keeps the decision and tells the admin the user was not told', async () => {
    const id = await register(stack, 'unreachable@example.com');
    const reply = await stack.app.inject({
      method: 'POST',
      url: `/api/admin/users/${id}/approve`,
      headers: bearer(stack.adminToken),
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toMatchObject({
      message: 'User approved. The e-mail to the user could not be sent.',
      data: { status: 'approved', roles: ['user'] },
    });
  });
});
