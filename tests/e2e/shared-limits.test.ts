// Two instances of the product behind one PostgreSQL database and one Redis, as a deployment with
// several servers runs: the verification-mail and sign-in limits are kept in Redis, so asking each
// instance in turn does not get around them, and the 429 says when to come back (Retry-After). With
// JWT_SECRET and TOKEN_ENCRYPTION_KEY given to both, a session and a stored provider token work on
// either instance, and the database holds the token only encrypted.

import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_THROTTLE_LIMITS } from '../../server/auth/login-throttle';
import { callApi, startProduct, type RunningProduct } from './harness';
import { startMailSink, type MailSink } from './mail-sink';

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function withPostgres<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe('two instances sharing PostgreSQL and Redis', () => {
  const database = `qml_e2e_shared_${process.pid}_${Date.now()}`;
  const prefix = `qml-e2e-shared-${process.pid}-${Date.now()}`;
  let sink: MailSink;
  let first: RunningProduct;
  let second: RunningProduct;

  beforeAll(async () => {
    await withPostgres((client) => client.query(`create database ${database}`));
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    sink = await startMailSink();
    const env = {
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      SMTP_URL: sink.url,
      JWT_SECRET: randomBytes(32).toString('hex'),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    // One after the other: the first applies the migrations.
    first = await startProduct(env);
    second = await startProduct(env);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await sink?.stop();
    await withPostgres((client) => client.query(`drop database if exists ${database} with (force)`));
  });

  it('counts verification mails across instances and answers 429 with Retry-After', async () => {
    const grace = { name: 'grace_h', email: 'grace@example.com', password: 'cobol123' };
    expect((await callApi(first, '/users', { method: 'POST', body: grace })).status).toBe(201);
    await sink.waitForMail(grace.email);
    // Three resends an hour per address (server/accounts/account-limits.ts), asked of both instances.
    for (const instance of [second, first, second]) {
      const reply = await callApi(instance, '/users/resend-verification', {
        method: 'POST',
        body: { email: grace.email },
      });
      expect(reply.status).toBe(200);
    }
    const refused = await callApi<{ detail: string }>(first, '/users/resend-verification', {
      method: 'POST',
      body: { email: grace.email },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatch(
      /^Too many verification e-mails. Please try again in \d+ minutes?\.$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await expect.poll(() => sink.mails.filter((mail) => mail.to.includes(grace.email)).length).toBe(4);
  });

  it('keeps a provider token encrypted, readable by its owner on either instance', async () => {
    const login = await fetch(`${first.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: first.admin.email,
        password: first.admin.password,
      }),
    });
    const token = ((await login.json()) as { access_token: string }).access_token;
    const me = (await callApi<{ data: { id: number } }>(second, '/users/me', { token })).body.data;
    const secret = `ibm-${randomBytes(24).toString('hex')}`;
    const saved = await callApi(first, `/users/${me.id}`, {
      method: 'PUT',
      token,
      body: { provided_timezone: 'Europe/Berlin', custom_ibmq_token: secret },
    });
    expect(saved.status).toBe(200);
    const read = await callApi<{ data: { custom_ibmq_token: string | null } }>(
      second,
      `/users/${me.id}/ibmq-token`,
      {
        token,
      },
    );
    expect(read.body.data.custom_ibmq_token).toBe(secret);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ row: string; encrypted: unknown }>(
        'select row_to_json(users)::text as row, custom_ibmq_token_encrypted as encrypted from users where id = $1',
        [me.id],
      );
      expect(rows[0]!.encrypted).toBeTruthy();
      expect(rows[0]!.row).not.toContain(secret);
      expect(rows[0]!.row).not.toContain(Buffer.from(secret).toString('base64'));
      expect(rows[0]!.row).not.toContain(Buffer.from(secret).toString('hex'));
    } finally {
      await client.end();
    }
  });

  it('counts failed sign-ins across instances', async () => {
    const attempt = (instance: RunningProduct) =>
      fetch(`${instance.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: first.admin.email, password: 'wrong' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 20 && !statuses.includes(429); i++)
      statuses.push((await attempt(i % 2 ? second : first)).status);
    expect(statuses).toContain(429);
    // The free failures for one e-mail from one address in all, not per instance.
    expect(statuses.indexOf(429)).toBe(DEFAULT_THROTTLE_LIMITS.perEmailAndAddress);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
    // The limit holds whichever instance is asked next, and the 429 says when to come back.
    for (const instance of [first, second]) {
      const refused = await attempt(instance);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
