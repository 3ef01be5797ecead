import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import path from 'node:path';
import { notFoundBody } from './error-handler';

/** Vite names every file under /assets/ by its content hash: a changed file gets a new name. */
export const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current bundles, so the browser must ask again each time (an ETag keeps that cheap). */
export const APP_SHELL_CACHE = 'no-cache';

/** A path the web app routes itself: not the API, not /assets/, no file extension in its last segment. */
export function isAppRoute(url: string): boolean {
  const pathname = url.split(/[?#]/)[0] ?? '';
  if (pathname.startsWith('/api/') || pathname.startsWith('/assets/')) return false;
  return !/\.[A-Za-z0-9]+$/.test(pathname.split('/').at(-1) ?? '');
}

/**
 * Serves the built web app from `root`: the brotli or gzip copy written at build time when the
 * browser accepts it (with `Vary: Accept-Encoding`), hashed assets cached for a year, the app shell
 * revalidated on every load, and the app shell for client-side routes.
 */
export async function registerWebAppFiles(app: FastifyInstance, root: string): Promise<void> {
  const assetsDir = path.join(root, 'assets') + path.sep;
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      reply.header('cache-control', filePath.startsWith(assetsDir) ? HASHED_ASSET_CACHE : APP_SHELL_CACHE);
    },
  });
  // A missing file (a stale /assets/ bundle name) is a 404, not HTML that the browser fails to run.
  app.setNotFoundHandler((request, reply) => {
    if (request.method === 'GET' && isAppRoute(request.url)) return reply.sendFile('index.html');
    return reply.code(404).send(notFoundBody());
  });
}
