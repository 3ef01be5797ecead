import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/passwords';
import { UsersRepository } from '../auth/users-repository';
import { bearer, MODES, startStack, type TestStack } from '../test-support/harness';
import { CONTACT_LIMIT, MESSAGE_SENT } from './contact-service';

// POST /api/contact: the contact form's rules and messages, the stored message, a mail to every
// admin who can act (through the outbox, the embedded default) and the per-user hourly limit.

describe.each(MODES.filter((m) => m.queue === 'in-process'))('contact form on $database', (mode) => {
  let stack: TestStack;
  let token: string;
  const form = { name: 'Dana', email: 'dana@example.com', message: 'Hello,\nhow do I start?' };

  const send = (payload: object, as: string | null = token) =>
    stack.app.inject({ method: 'POST', url: '/api/contact', headers: as ? bearer(as) : {}, payload });

  beforeAll(async () => {
    if (!mode.available) return;
    stack = await startStack(mode);
    token = await stack.userToken('dana@example.com');
    // A second admin receives the mail too; a disabled admin does not.
    const users = new UsersRepository(stack.services.db);
    const passwordHash = await hashPassword('another admin password');
    for (const email of ['second-admin@example.com', 'disabled-admin@example.com']) {
      await stack.services.db.transaction((tx) =>
        users.createActivated(tx, {
          name: email.split('@')[0]!,
          email,
          passwordHash,
          roles: ['admin', 'user'],
        }),
      );
    }
    await stack.services.db.query(
      `update users set disabled_at = now() where email = 'disabled-admin@example.com'`,
    );
  });
  afterAll(async () => stack?.close());

  it.runIf(mode.available)('needs a signed-in user', async () => {
    const reply = await send(form, null);
    expect(reply.statusCode).toBe(401);
  });

  it.runIf(mode.available)('refuses with the form messages, field by field, and keeps nothing', async () => {
    const cases: [object, { field: string; message: string }[]][] = [
      [
        {},
        [
          { field: '/name', message: 'This field is required' },
          { field: '/email', message: 'Email is required' },
          { field: '/message', message: 'This field is required' },
        ],
      ],
      [{ ...form, name: '   ' }, [{ field: '/name', message: 'This field is required' }]],
      [{ ...form, email: 'not-an-address' }, [{ field: '/email', message: 'Invalid email format' }]],
      [{ ...form, message: '' }, [{ field: '/message', message: 'This field is required' }]],
      [
        { ...form, message: 'x'.repeat(5001) },
        [{ field: '/message', message: 'Message must not exceed 5000 characters' }],
      ],
    ];
    for (const [body, errors] of cases) {
      const reply = await send(body);
      expect(reply.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.json()).toEqual({ success: false, detail: errors[0]!.message, errors });
    }
    const control = await send({ ...form, name: 'Da\u0000na' });
    expect(control.statusCode).toBe(400);
    expect(control.json()).toMatchObject({ errors: [{ field: '/name' }] });
    const { rows } = await stack.services.db.query('select id from contact_messages');
    expect(rows).toEqual([]);
  });

  it.runIf(mode.available)(
    'stores the message and mails every admin who can act (not the sender, not a disabled admin)',
    async () => {
      const reply = await send({ ...form, message: 'x'.repeat(5000) });
      expect(reply.statusCode).toBe(200);
      expect(reply.json()).toEqual({ success: true, message: MESSAGE_SENT });
      const ok = await send(form);
      expect(ok.json()).toEqual({ success: true, message: 'Your message has been sent.' });
      const { rows } = await stack.services.db.query<{
        name: string;
        email: string;
        message: string;
        user_id: number;
      }>('select c.name, c.email, c.message, c.user_id from contact_messages c order by id');
      expect(rows.at(-1)).toMatchObject({ name: 'Dana', email: 'dana@example.com', message: form.message });
      const mails = await stack.services.db.query<{
        recipient: string;
        subject: string;
        body: string;
        kind: string;
      }>(`select recipient, subject, body, kind from mail_outbox where kind = 'contact' order by id`);
      const last = mails.rows.slice(-2);
      expect(last.map((m) => m.recipient).sort()).toEqual(['admin@example.com', 'second-admin@example.com']);
      expect(last[0]!.subject).toBe('Contact form: message from Dana');
      expect(last[0]!.body).toContain(form.message);
      expect(last[0]!.body).toContain('dana@example.com');
      expect(mails.rows.map((m) => m.recipient)).not.toContain('disabled-admin@example.com');
    },
  );

  it.runIf(mode.available)(
    `allows ${CONTACT_LIMIT.max} messages an hour per user, then 429 with Retry-After`,
    async () => {
      const other = await stack.userToken('erin@example.com');
      for (let i = 0; i < CONTACT_LIMIT.max; i++) expect((await send(form, other)).statusCode).toBe(200);
      const refused = await send(form, other);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
      expect(refused.json()).toEqual({
        success: false,
        detail: 'Too many messages. Please try again in 60 minutes.',
      });
      // A refused message is neither kept nor mailed, and other users are not held back.
      const { rows } = await stack.services.db.query<{ n: number }>(
        `select count(*)::int as n from contact_messages c join users u on u.id = c.user_id where u.email = 'erin@example.com'`,
      );
      expect(Number(rows[0]!.n)).toBe(CONTACT_LIMIT.max);
      const third = await stack.userToken('fay@example.com');
      expect((await send(form, third)).statusCode).toBe(200);
    },
  );
});
