import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { createServices, type Services } from '../services';
import { LoginThrottle } from './login-throttle';
import { migratedMemoryDatabase } from '../test-support/harness';

/** The app on an empty database whose throttle allows 2 failures per e-mail and address. */
async function start(env: Record<string, string>) {
  const db = await migratedMemoryDatabase();
  // WORKER_WARM lazy: no job runs here, and the default (true) starts a preloaded Python at once (seconds of CPU).
  const config = {
    ...loadConfig({ DATA_DIR: '/tmp/qml-client-address', WORKER_WARM: 'lazy', ...env }),
    jwtSecret: 'x'.repeat(32),
  };
  const services: Services = {
    ...createServices(config, db, pino({ level: 'silent' })),
    throttle: new LoginThrottle(undefined, { perEmailAndAddress: 2 }),
  };
  return { services, app: await buildApp(services, { serveWebApp: false }) };
}

/** Failed sign-ins, each claiming through X-Forwarded-For to come from the given address. */
async function failures(app: FastifyInstance, forwardedFor: (i: number) => string, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await app.inject({
      method: 'POST',
      url: '/api/login',
      remoteAddress: '127.0.0.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor(i) },
      payload: new URLSearchParams({ username: 'nobody@example.com', password: 'wrong' }).toString(),
    });
    statuses.push(reply.statusCode);
  }
  return statuses;
}

describe('client address for the sign-in throttle', () => {
  let running: Awaited<ReturnType<typeof start>> | null = null;
  afterEach(async () => {
    await running?.app.close();
    await running?.services.close();
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy: a forged header does not evade the cap', async () => {
    running = await start({});
    expect(await failures(running.app, (i) => `203.0.113.${i}`, 3)).toEqual([401, 401, 429]);
  });

  it('takes the client address from a trusted proxy', async () => {
    running = await start({ TRUST_PROXY: '127.0.0.1' });
    expect(await failures(running.app, (i) => `203.0.113.${i}`, 3)).toEqual([401, 401, 401]);
    expect(await failures(running.app, () => '198.51.100.7', 3)).toEqual([401, 401, 429]);
  });
});
