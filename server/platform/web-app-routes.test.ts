// The built web app: its files, its client-side routes (the app shell) and missing files (404).

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, DIST_DIR, isAppRoute } from '../app';
import { loadConfig } from '../config';
import { openMemoryDatabase } from '../db/database';
import { migrate } from '../db/migrate';
import { createServices, type Services } from '../services';

describe('isAppRoute', () => {
  it('takes client-side routes and leaves the API, /assets/ and files to 404', () => {
    expect(['/', '/profile', '/applications/7', '/admin/diagnostics?tab=1'].map(isAppRoute)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['/api/nothing', '/assets/index-abc123.js', '/assets/x', '/favicon.png', '/robots.txt?x=1'].map(
        isAppRoute,
      ),
    ).toEqual([false, false, false, false, false]);
  });
});

const built = existsSync(path.join(DIST_DIR, 'index.html'));

describe.skipIf(!built)('the built web app', () => {
  let app: FastifyInstance;
  let services: Services;
  beforeAll(async () => {
    const db = await openMemoryDatabase();
    await migrate(db);
    const config = { ...loadConfig({ DATA_DIR: '/tmp/qml-web-app' }), jwtSecret: 'x'.repeat(32) };
    services = createServices(config, db, pino({ level: 'silent' }));
    app = await buildApp(services, { serveWebApp: true });
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
  });

  it('answers a missing /assets/ file 404, not the HTML page', async () => {
    const reply = await app.inject({ url: '/assets/missing-0123abcd.js' });
    expect(reply.statusCode).toBe(404);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.json()).toEqual({ success: false, detail: 'Not found' });
  });

  it('answers a client-side route with the app shell', async () => {
    const reply = await app.inject({ url: '/applications/7' });
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^text\/html/);
    expect(reply.body).toContain('<script');
  });
});
