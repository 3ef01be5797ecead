import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, EACH_ONCE, itIn, ONE_MODE, startStack, type TestStack } from '../test-support/harness';
import { ACCOUNT_DISABLED, REGISTRATION_REJECTED } from '../auth/sign-in-gate';
import { EMAIL_TAKEN, PROFILE_UPDATED, WRONG_CURRENT_PASSWORD } from './accounts-service';
import { hashPassword } from '../auth/passwords';

const COMMON_PASSWORD = 'This password is one of the most commonly used; choose one that is harder to guess';

// Registration to approved sign-in, verification links, the approval status, the current user and
// the profile, on PGlite and PostgreSQL; in the bullmq mode REDIS_URL is set, so the rate counts live in
// Redis (in memory otherwise). Messages and password rules alone are checked in one mode (harness MODES).

interface Outbox {
  recipient: string;
  body: string;
  kind: string | null;
}

async function outbox(stack: TestStack, to: string): Promise<Outbox[]> {
  const { rows } = await stack.services.db.query<Outbox>(
    `select recipient, body, kind from mail_outbox where recipient = $1 order by id`,
    [to],
  );
  return rows;
}

const linkIn = (mail: Outbox) => /https?:\/\/\S+verify-email\?token=[\w-]+/.exec(mail.body)![0];
const pathOf = (link: string) => new URL(link).pathname + new URL(link).search;

async function register(stack: TestStack, body: Record<string, unknown>, ip = '10.0.0.1') {
  return stack.app.inject({ method: 'POST', url: '/api/users', payload: body, remoteAddress: ip });
}

async function login(stack: TestStack, email: string, password: string) {
  return stack.app.inject({ method: 'POST', url: '/api/login', payload: { username: email, password } });
}

/** Registers, verifies through the mailed link and approves with the admin API; returns a token. */
async function activeUser(stack: TestStack, email: string, password = 'bell-state-42') {
  const created = await register(stack, { name: 'user_' + email.split('@')[0], email, password });
  expect(created.statusCode).toBe(201);
  const id = (created.json() as { data: { id: number } }).data.id;
  const [mail] = await outbox(stack, email);
  await stack.app.inject({ url: pathOf(linkIn(mail!)) });
  await stack.services.db.query(`update users set is_approved = true, approved_at = now() where id = $1`, [
    id,
  ]);
  await stack.services.db.query(
    `insert into user_roles (user_id, role_id) select $1, id from roles where name = 'user'`,
    [id],
  );
  const token = (await login(stack, email, password)).json().data.access_token as string;
  return { id, token };
}

describe.each(EACH_ONCE)('accounts on $database, $queue', (mode) => {
  const itOnce = itIn(mode, [ONE_MODE]);
  let stack: TestStack;
  beforeAll(async () => {
    if (mode.available) stack = await startStack(mode, { PUBLIC_URL: 'http://app.test' });
  });
  afterAll(async () => stack?.close());

  itOnce('registration: the spec messages, field by field', async () => {
    const empty = await register(stack, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({
      success: false,
      detail: 'Username is required',
      errors: [
        { field: '/name', message: 'Username is required' },
        { field: '/email', message: 'Email is required' },
        { field: '/password', message: 'Password is required' },
      ],
    });
    const short = await register(stack, { name: 'ab', email: 'not-an-email', password: '12345' });
    expect(short.json().errors).toEqual([
      { field: '/name', message: 'Username must be at least 3 characters' },
      { field: '/email', message: 'Invalid email format' },
      { field: '/password', message: 'Password must be at least 8 characters' },
    ]);
    const nul = await register(stack, {
      name: 'abc\u0000',
      email: 'x@example.com',
      password: 'bell-state-42',
    });
    expect(nul.statusCode).toBe(400);
  });

  it.runIf(mode.available)(
    'registration ignores role_ids, mails a single-use link, and the gate follows the spec',
    async () => {
      const email = 'new.person@example.com';
      const created = await register(stack, {
        name: 'new_person',
        email,
        password: 'bell-state-42',
        role_ids: [1, 2],
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ success: true, data: { email } });
      const id = created.json().data.id as number;
      const { rows } = await stack.services.db.query<{ count: number }>(
        `select count(*)::int as count from user_roles where user_id = $1`,
        [id],
      );
      expect(rows[0]!.count).toBe(0);

      const again = await register(stack, {
        name: 'someone',
        email: 'NEW.person@example.com',
        password: 'bell-state-42',
      });
      expect(again.statusCode).toBe(409);
      expect(again.json().detail).toBe(EMAIL_TAKEN);

      const status = () =>
        stack.app.inject({ url: `/api/users/approval-status?email=${encodeURIComponent(email)}` });
      expect((await status()).json()).toEqual({
        success: true,
        extra_data: { email_verified: false, is_approved: false },
      });
      expect((await login(stack, email, 'bell-state-42')).json().data).toMatchObject({
        redirect: '/pending-verify',
      });

      const mails = await outbox(stack, email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.kind).toBe('verification');
      const link = linkIn(mails[0]!);
      expect(link.startsWith('http://app.test/api/users/verify-email?token=')).toBe(true);
      const opened = await stack.app.inject({ url: pathOf(link) });
      expect(opened.statusCode).toBe(302);
      expect(opened.headers.location).toBe('http://app.test/email-verified');
      const reused = await stack.app.inject({ url: pathOf(link) });
      expect(reused.headers.location).toBe('http://app.test/email-verified?status=invalid');
      const unknown = await stack.app.inject({ url: '/api/users/verify-email?token=nope' });
      expect(unknown.headers.location).toBe('http://app.test/email-verified?status=invalid');

      expect((await status()).json().extra_data).toEqual({ email_verified: true, is_approved: false });
      const waiting = await login(stack, email, 'bell-state-42');
      expect(waiting.statusCode).toBe(403);
      expect(waiting.json().data).toMatchObject({ redirect: '/waiting-admin-approval' });
    },
  );

  it.runIf(mode.available)('an expired verification link does not verify', async () => {
    const email = 'late@example.com';
    await register(stack, { name: 'late_one', email, password: 'bell-state-42' });
    await stack.services.db.query(
      `update email_verification_tokens set expires_at = now() - interval '1 second'`,
    );
    const [mail] = await outbox(stack, email);
    const opened = await stack.app.inject({ url: pathOf(linkIn(mail!)) });
    expect(opened.headers.location).toBe('http://app.test/email-verified?status=invalid');
    const status = await stack.app.inject({ url: `/api/users/approval-status?email=${email}` });
    expect(status.json().extra_data.email_verified).toBe(false);
  });

  itOnce('approval status and resend give the same answer for unknown e-mails', async () => {
    const status = await stack.app.inject({ url: '/api/users/approval-status?email=nobody@example.com' });
    expect(status.json()).toEqual({
      success: true,
      extra_data: { email_verified: false, is_approved: false },
    });
    const known = await stack.app.inject({
      method: 'POST',
      url: '/api/users/resend-verification',
      payload: { email: 'late@example.com' },
    });
    const unknown = await stack.app.inject({
      method: 'POST',
      url: '/api/users/resend-verification',
      payload: { email: 'nobody@example.com' },
    });
    expect(known.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    expect(await outbox(stack, 'late@example.com')).toHaveLength(2);
    expect(await outbox(stack, 'nobody@example.com')).toHaveLength(0);
  });

  it.runIf(mode.available)('verification mail is rate-limited per address with Retry-After', async () => {
    const send = () =>
      stack.app.inject({
        method: 'POST',
        url: '/api/users/resend-verification',
        payload: { email: 'spam-target@example.com' },
      });
    for (let i = 0; i < 3; i++) expect((await send()).statusCode).toBe(200);
    const refused = await send();
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The wait in the text agrees with Retry-After (rounded up to whole minutes: one hour here).
    const minutes = Math.ceil(Number(refused.headers['retry-after']) / 60);
    expect(refused.json()).toMatchObject({
      success: false,
      detail: `Too many verification e-mails. Please try again in ${minutes} minutes.`,
    });
  });

  it.runIf(mode.available)('registration is rate-limited per address', async () => {
    const ip = '10.9.9.9';
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await register(
            stack,
            { name: `bulk_${i}`, email: `bulk${i}@example.com`, password: 'bell-state-42' },
            ip,
          )
        ).statusCode,
      ).toBe(201);
    }
    const refused = await register(
      stack,
      { name: 'bulk_x', email: 'bulkx@example.com', password: 'bell-state-42' },
      ip,
    );
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address may still register.
    expect(
      (
        await register(
          stack,
          { name: 'other', email: 'other@example.com', password: 'bell-state-42' },
          '10.9.9.8',
        )
      ).statusCode,
    ).toBe(201);
  });

  itOnce('disabled and rejected accounts may not sign in', async () => {
    const a = await activeUser(stack, 'closed-a@example.com');
    const b = await activeUser(stack, 'closed-b@example.com');
    await stack.services.db.query(`update users set disabled_at = now() where id = $1`, [a.id]);
    await stack.services.db.query(`update users set rejected_at = now() where id = $1`, [b.id]);
    const disabled = await login(stack, 'closed-a@example.com', 'bell-state-42');
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json().detail).toBe(ACCOUNT_DISABLED);
    const rejected = await login(stack, 'closed-b@example.com', 'bell-state-42');
    expect(rejected.statusCode).toBe(403);
    expect(rejected.json().detail).toBe(REGISTRATION_REJECTED);
  });

  it.runIf(mode.available)('users/me, profile rules, ownership and the encrypted token', async () => {
    const a = await activeUser(stack, 'owner-a@example.com');
    const b = await activeUser(stack, 'other-b@example.com');
    const me = await stack.app.inject({ url: '/api/users/me', headers: bearer(a.token) });
    expect(me.json().data).toEqual({
      id: a.id,
      name: 'user_owner-a',
      email: 'owner-a@example.com',
      email_verified: true,
      is_approved: true,
      roles: ['user'],
      dob: null,
      image_url: null,
      provided_timezone: null,
      has_custom_ibmq_token: false,
    });

    const put = (token: string, id: number, payload: Record<string, unknown>) =>
      stack.app.inject({ method: 'PUT', url: `/api/users/${id}`, headers: bearer(token), payload });

    const bad = await put(a.token, a.id, {
      name: 'a',
      dob: '2099-01-01',
      custom_ibmq_token: 'has space',
      provided_timezone: 'Mars/Olympus',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([
      { field: '/name', message: 'Username must be at least 2 characters' },
      { field: '/dob', message: 'Date of birth cannot be in the future' },
      {
        field: '/custom_ibmq_token',
        message: 'Token can only contain letters, numbers, hyphens, and underscores',
      },
      { field: '/provided_timezone', message: 'Choose a time zone from the list' },
    ]);
    const young = new Date();
    young.setUTCFullYear(young.getUTCFullYear() - 12);
    const tooYoung = await put(a.token, a.id, { name: 'ok_name', dob: young.toISOString().slice(0, 10) });
    expect(tooYoung.json().errors).toEqual([{ field: '/dob', message: 'You must be at least 13 years old' }]);
    const long = await put(a.token, a.id, {
      name: 'x'.repeat(51),
      dob: '1990-01-01',
      custom_ibmq_token: 'a'.repeat(301),
    });
    expect(long.json().errors).toEqual([
      { field: '/name', message: 'Username must not exceed 50 characters' },
      { field: '/custom_ibmq_token', message: 'Token must not exceed 300 characters' },
    ]);
    const chars = await put(a.token, a.id, { name: 'bad name!', dob: '1990-01-01' });
    expect(chars.json().errors).toEqual([
      { field: '/name', message: 'Username can only contain letters, numbers, and underscores' },
    ]);

    const token = 'my-secret_TOKEN-123';
    const ok = await put(a.token, a.id, {
      name: 'owner_a',
      dob: '1990-05-06',
      image_url: '/api/images/a.png',
      provided_timezone: 'Europe/Berlin',
      custom_ibmq_token: token,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      success: true,
      message: PROFILE_UPDATED,
      data: {
        name: 'owner_a',
        dob: '1990-05-06',
        provided_timezone: 'Europe/Berlin',
        has_custom_ibmq_token: true,
      },
    });
    expect(JSON.stringify(ok.json())).not.toContain(token);
    // At rest the database holds no plaintext token.
    const { rows } = await stack.services.db.query<Record<string, unknown>>(
      `select * from users where id = $1`,
      [a.id],
    );
    expect(JSON.stringify(rows[0])).not.toContain(token);
    expect(String(rows[0]!.custom_ibmq_token_encrypted)).toMatch(/^v1\./);
    // The owner reads it back for the edit form; nobody else can.
    const own = await stack.app.inject({ url: `/api/users/${a.id}/ibmq-token`, headers: bearer(a.token) });
    expect(own.json().data).toEqual({ custom_ibmq_token: token });
    expect(
      (await stack.app.inject({ url: `/api/users/${a.id}/ibmq-token`, headers: bearer(b.token) })).statusCode,
    ).toBe(404);
    expect(
      (await stack.app.inject({ url: `/api/users/${a.id}/ibmq-token`, headers: bearer(stack.adminToken) }))
        .statusCode,
    ).toBe(404);
    // User B can neither change A (404) nor tell A exists.
    const foreign = await put(b.token, a.id, { name: 'hijack', dob: '1990-01-01' });
    expect(foreign.statusCode).toBe(404);
    expect((await put(b.token, 2147483000, { name: 'hijack', dob: '1990-01-01' })).json()).toEqual(
      foreign.json(),
    );
    // An admin may.
    expect((await put(stack.adminToken, a.id, { provided_timezone: 'UTC' })).statusCode).toBe(200);

    // The settings page's body alone; null clears the token.
    const settings = await put(a.token, a.id, { provided_timezone: 'Asia/Tokyo', custom_ibmq_token: null });
    expect(settings.json().data).toMatchObject({
      provided_timezone: 'Asia/Tokyo',
      has_custom_ibmq_token: false,
    });
  });

  it.runIf(mode.available)(
    'a password change: all three fields, the rules, and other sessions end',
    async () => {
      const a = await activeUser(stack, 'pw-change@example.com', 'ghz-circuit-9');
      const second = (await login(stack, 'pw-change@example.com', 'ghz-circuit-9')).json().data
        .access_token as string;
      const put = (payload: Record<string, unknown>) =>
        stack.app.inject({ method: 'PUT', url: `/api/users/${a.id}`, headers: bearer(a.token), payload });
      const base = { name: 'pw_user', dob: '1990-01-01' };
      const partial = await put({ ...base, old_password: 'secret12' });
      expect(partial.json().errors.map((e: { field: string }) => e.field)).toEqual([
        '/new_password',
        '/confirm_new_password',
      ]);
      const weak = await put({
        ...base,
        old_password: 'short',
        new_password: 'abcdefg',
        confirm_new_password: 'abcdefgx',
      });
      expect(weak.json().errors).toEqual([
        { field: '/old_password', message: 'Password must be at least 6 characters' },
        { field: '/new_password', message: 'Password must be at least 8 characters' },
        { field: '/confirm_new_password', message: 'Passwords do not match' },
      ]);
      // The registration policy: a commonly used password is refused as the new one too.
      const common = await put({
        ...base,
        old_password: 'ghz-circuit-9',
        new_password: 'Password1',
        confirm_new_password: 'Password1',
      });
      expect(common.statusCode).toBe(400);
      expect(common.json().errors).toEqual([{ field: '/new_password', message: COMMON_PASSWORD }]);
      const wrong = await put({
        ...base,
        old_password: 'wrong-pass1',
        new_password: 'n3w-pass!',
        confirm_new_password: 'n3w-pass!',
      });
      expect(wrong.json().errors).toEqual([{ field: '/old_password', message: WRONG_CURRENT_PASSWORD }]);
      const changed = await put({
        ...base,
        old_password: 'ghz-circuit-9',
        new_password: 'n3w-pass!',
        confirm_new_password: 'n3w-pass!',
      });
      expect(changed.statusCode).toBe(200);
      // The session that changed it goes on; the account's other session ends; the new password works.
      expect((await stack.app.inject({ url: '/api/users/me', headers: bearer(a.token) })).statusCode).toBe(
        200,
      );
      expect((await stack.app.inject({ url: '/api/users/me', headers: bearer(second) })).statusCode).toBe(
        401,
      );
      expect((await login(stack, 'pw-change@example.com', 'ghz-circuit-9')).statusCode).toBe(401);
      expect((await login(stack, 'pw-change@example.com', 'n3w-pass!')).statusCode).toBe(200);
    },
  );

  itOnce(
    'one password policy for registration: at least 8 characters and not a commonly used password',
    async () => {
      const tries: [string, string][] = [
        ['1234567', 'Password must be at least 8 characters'],
        ['12345678', COMMON_PASSWORD],
        ['password', COMMON_PASSWORD],
        ['Password1', COMMON_PASSWORD],
        ['qwertyuiop', COMMON_PASSWORD],
      ];
      for (const [password, message] of tries) {
        const reply = await register(stack, { name: 'policy_user', email: 'policy@example.com', password });
        expect(reply.statusCode, password).toBe(400);
        expect(reply.json().errors, password).toEqual([{ field: '/password', message }]);
      }
      const accepted = await register(stack, {
        name: 'policy_user',
        email: 'policy@example.com',
        password: 'tr0ub4dor&3',
      });
      expect(accepted.statusCode).toBe(201);
    },
  );

  itOnce(
    "an account's older 6-character password is still accepted as the current one, to change it",
    async () => {
      // Registration once accepted 6 characters: such an account must be able to move to the policy.
      const a = await activeUser(stack, 'six@example.com', 'bell-state-42');
      await stack.services.db.query('update users set password_hash = $1 where id = $2', [
        await hashPassword('six6six'),
        a.id,
      ]);
      const put = (payload: Record<string, unknown>) =>
        stack.app.inject({ method: 'PUT', url: `/api/users/${a.id}`, headers: bearer(a.token), payload });
      const base = { name: 'six_user', dob: '1990-01-01' };
      const short = await put({
        ...base,
        old_password: '12345',
        new_password: 'n3w-pass!',
        confirm_new_password: 'n3w-pass!',
      });
      expect(short.statusCode).toBe(400);
      expect(short.json().errors).toEqual([
        { field: '/old_password', message: 'Password must be at least 6 characters' },
      ]);
      const changed = await put({
        ...base,
        old_password: 'six6six',
        new_password: 'n3w-pass!',
        confirm_new_password: 'n3w-pass!',
      });
      expect(changed.statusCode).toBe(200);
      expect((await login(stack, 'six@example.com', 'n3w-pass!')).statusCode).toBe(200);
    },
  );
});

describe('registration while the mail server is away', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // Nothing listens on port 1: every send fails at once.
    stack = await startStack({ database: 'pglite', queue: 'in-process' }, { SMTP_URL: 'smtp://127.0.0.1:1' });
  });
  afterAll(async () => stack?.close());

  it('still creates the account (201); the user asks for a new link later', async () => {
    const reply = await register(stack, {
      name: 'no_mail',
      email: 'no-mail@example.com',
      password: 'bell-state-42',
    });
    expect(reply.statusCode).toBe(201);
    const status = await stack.app.inject({ url: '/api/users/approval-status?email=no-mail@example.com' });
    expect(status.json().extra_data).toEqual({ email_verified: false, is_approved: false });
  });
});
