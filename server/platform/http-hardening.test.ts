import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, DIST_DIR } from '../app';
import { loadConfig } from '../config';
import { createServices, type Services } from '../services';
import { migratedMemoryDatabase } from '../test-support/harness';

const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
);

let app: FastifyInstance;
let services: Services;
beforeAll(async () => {
  const db = await migratedMemoryDatabase();
  // WORKER_WARM lazy: no job runs here, and the default (true) starts a preloaded Python at once (seconds of CPU).
  const config = {
    ...loadConfig({ DATA_DIR: '/tmp/qml-hardening', WORKER_WARM: 'lazy' }),
    jwtSecret: 'x'.repeat(32),
  };
  services = createServices(config, db, logger);
  app = await buildApp(services, { logger, serveWebApp: false });
});
afterAll(async () => {
  await app.close();
  await services.close();
});

const directives = (csp: string) =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1)] as const),
  );

describe('security headers', () => {
  it.each(['/api/health/live', '/api/no-such-route', '/api/users/me'])(
    'are on every reply (%s)',
    async (url) => {
      const reply = await app.inject({ url });
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['x-frame-options']).toBe('DENY');
      expect(reply.headers['referrer-policy']).toBe('no-referrer');
      const csp = directives(String(reply.headers['content-security-policy']));
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.get('object-src')).toEqual(["'none'"]);
      // Only the app's own files: no inline script, and no eval (the browser's validators are precompiled).
      expect(csp.get('script-src')).toEqual(["'self'"]);
      expect(String(reply.headers['content-security-policy'])).not.toContain('unsafe-eval');
      expect(csp.get('script-src-attr')).toEqual(["'none'"]);
      expect(csp.has('upgrade-insecure-requests')).toBe(false);
    },
  );

  it('give the API docs page its own policy: its scripts from itself (or by hash) only, never framed', async () => {
    const reply = await app.inject({ url: '/api/docs/' });
    expect(reply.statusCode).toBe(200);
    const csp = directives(String(reply.headers['content-security-policy']));
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(
      csp.get('script-src')!.every((source) => source === "'self'" || source.startsWith("'sha256-")),
    ).toBe(true);
    expect(csp.has('upgrade-insecure-requests')).toBe(false);
  });

  it('fit the app shell: no inline script in index.html or the built one', () => {
    const shells = [path.resolve(DIST_DIR, '../index.html'), path.join(DIST_DIR, 'index.html')].filter(
      (file) => existsSync(file),
    );
    for (const file of shells) {
      const scripts = [...readFileSync(file, 'utf8').matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length, file).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        expect(attributes, file).toMatch(/\bsrc=/);
        expect(body!.trim(), file).toBe('');
      }
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\son[a-z]+=/i); // no inline handlers
    }
  });
});

describe('request logs', () => {
  const requestLines = () => lines.filter((line) => line.msg === 'request');

  it('write nothing per request at info', async () => {
    lines.length = 0;
    logger.level = 'info';
    for (let i = 0; i < 10; i++) await app.inject({ url: '/api/health/live' });
    expect(lines).toEqual([]);
  });

  it('write one debug line per request with the route pattern, never the raw URL', async () => {
    lines.length = 0;
    logger.level = 'debug';
    for (let i = 0; i < 10; i++) await app.inject({ url: `/api/jobs/${i}?after=secret-${i}` });
    expect(requestLines()).toHaveLength(10);
    expect(lines).toHaveLength(10);
    expect(requestLines()[0]).toMatchObject({
      level: 20,
      method: 'GET',
      route: '/api/jobs/:id',
      status: 401,
    });
    expect(JSON.stringify(lines)).not.toContain('secret-');
  });
});
