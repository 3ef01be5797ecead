// The built web app: its files (precompressed, cached by kind), its client-side routes (the app
// shell) and missing files (404). Served from a small build of its own, compressed by the build's
// own step, so the test does not depend on `vite build` having run.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app';
import { loadConfig } from '../config';
import { createServices, type Services } from '../services';
import { precompressDirectory } from './precompressed-files';
import { APP_SHELL_CACHE, HASHED_ASSET_CACHE, isAppRoute } from './web-app-files';
import { migratedMemoryDatabase } from '../test-support/harness';

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

describe('the built web app', () => {
  let app: FastifyInstance;
  let services: Services;
  let dir: string;
  const script = Array.from({ length: 400 }, (_, i) => `export const value${i} = ${i} * 2;`).join('\n');
  const shell = `<!doctype html><html><head><script type="module" src="/assets/index-0a1b2c3d.js"></script></head><body>${'<div></div>'.repeat(200)}</body></html>`;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'qml-web-app-'));
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'index.html'), shell);
    writeFileSync(path.join(dir, 'assets/index-0a1b2c3d.js'), script);
    await precompressDirectory(dir);
    const db = await migratedMemoryDatabase();
    // WORKER_WARM lazy: no job runs here, and the default (true) starts a preloaded Python at once (seconds of CPU).
    const config = {
      ...loadConfig({ DATA_DIR: '/tmp/qml-web-app', WORKER_WARM: 'lazy' }),
      jwtSecret: 'x'.repeat(32),
    };
    services = createServices(config, db, pino({ level: 'silent' }));
    app = await buildApp(services, { serveWebApp: true, webAppDir: dir });
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const asset = (acceptEncoding: string) =>
    app.inject({ url: '/assets/index-0a1b2c3d.js', headers: { 'accept-encoding': acceptEncoding } });

  it('sends a hashed asset brotli-compressed to a browser that accepts it, cached for a year', async () => {
    const reply = await asset('gzip, deflate, br, zstd');
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['content-encoding']).toBe('br');
    expect(reply.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(reply.headers['cache-control']).toBe(HASHED_ASSET_CACHE);
    expect(String(reply.headers.vary)).toMatch(/accept-encoding/i);
    expect(reply.rawPayload.length).toBeLessThan(script.length / 3);
    expect(brotliDecompressSync(reply.rawPayload).toString()).toBe(script);
  });

  it('sends gzip to a client that accepts only gzip, and the file itself to one that accepts neither', async () => {
    const gz = await asset('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);
    expect(gz.headers['cache-control']).toBe(HASHED_ASSET_CACHE);

    const plain = await asset('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);
    expect(plain.headers['cache-control']).toBe(HASHED_ASSET_CACHE);
    expect(String(plain.headers.vary)).toMatch(/accept-encoding/i);
  });

  it('makes the browser revalidate the app shell, at / and at client-side routes', async () => {
    for (const url of ['/', '/index.html', '/applications/7']) {
      const reply = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(reply.statusCode, url).toBe(200);
      expect(reply.headers['content-type'], url).toMatch(/^text\/html/);
      expect(reply.headers['cache-control'], url).toBe(APP_SHELL_CACHE);
      expect(brotliDecompressSync(reply.rawPayload).toString(), url).toBe(shell);
    }
  });

  it('answers a missing /assets/ file 404, not the HTML page', async () => {
    const reply = await app.inject({
      url: '/assets/missing-0123abcd.js',
      headers: { 'accept-encoding': 'br' },
    });
    expect(reply.statusCode).toBe(404);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.json()).toEqual({ success: false, detail: 'Not found' });
  });
});
