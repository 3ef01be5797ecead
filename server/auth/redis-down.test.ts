import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { createServices, type Services } from '../services';
import { hashPassword } from './passwords';
import { SIGN_IN_UNAVAILABLE } from './auth-routes';
import { UsersRepository } from './users-repository';
import { migratedMemoryDatabase } from '../test-support/harness';

// Scale-out with Redis down: sign-in counts failed attempts in Redis (the login throttle), and
// registration counts sign-ups there. Neither may answer 500: a 503 with a sentence instead.

/** A local port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Redis down (REDIS_URL at a closed port)', () => {
  let app: FastifyInstance;
  let services: Services;

  beforeAll(async () => {
    const db = await migratedMemoryDatabase();
    const suffix = randomBytes(6).toString('hex');
    const config = {
      ...loadConfig({
        DATA_DIR: `/tmp/qml-test-${suffix}`,
        REDIS_PREFIX: `qml-test-${suffix}`,
        WORKER_WARM: 'lazy',
      }),
      jwtSecret: randomBytes(32).toString('hex'),
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
    };
    services = createServices(config, db, pino({ level: 'silent' }), { runWorkers: false });
    app = await buildApp(services, { serveWebApp: false });
    const passwordHash = await hashPassword('a user password');
    await db.transaction((tx) =>
      new UsersRepository(db).createActivated(tx, {
        name: 'ada',
        email: 'ada@example.com',
        passwordHash,
        roles: ['user'],
      }),
    );
  });
  afterAll(async () => {
    await app?.close();
    // The queue's and the event bus's clients keep reconnecting; closing them must not wait for Redis.
    await Promise.race([services?.close(), new Promise((resolve) => setTimeout(resolve, 3000))]);
  });

  it('sign-in answers 503 with a sentence naming Redis, not 500', async () => {
    const reply = await app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { username: 'ada@example.com', password: 'a user password' },
    });
    expect(reply.statusCode).toBe(503);
    expect(reply.headers['retry-after']).toBe('60');
    expect(reply.json()).toMatchObject({ success: false, detail: SIGN_IN_UNAVAILABLE });
    expect(SIGN_IN_UNAVAILABLE).toContain('Redis');
  });

  it('registration (counted in Redis too) answers 503 with a sentence, not 500', async () => {
    const reply = await app.inject({
      method: 'POST',
      url: '/api/users',
      payload: { name: 'grace', email: 'grace@example.com', password: 'cobol-1959' },
    });
    expect(reply.statusCode).toBe(503);
    const body = reply.json() as { success: boolean; detail: string };
    expect(body.success).toBe(false);
    expect(body.detail).toMatch(/cannot reach Redis.*try again in a minute/);
  });
});
