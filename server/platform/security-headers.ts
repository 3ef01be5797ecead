import helmet from 'helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The web app's Content-Security-Policy. The built index.html loads one module script and one
 * stylesheet from /assets (no inline script), and the app talks only to its own origin.
 * - script-src 'self' only, no 'unsafe-eval': the browser validates with standalone validators the
 *   server writes from its schema files and serves as a same-origin module
 *   (GET /api/schemas/validators.js, src/engine/node/generate-validators.ts) and
 *   rjsf gets a validator that compiles nothing (src/renderers/form-validator.ts). The server still
 *   compiles Ajv at run time, in Node, where no CSP applies.
 * - style-src 'unsafe-inline': ApexCharts injects a <style> element and sets style attributes on
 *   its SVG, React Flow positions nodes with style attributes. Inline style cannot run code.
 * - img-src data: blob:: chart exports and icons as data URLs.
 */
export const APP_CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  // Not upgrade-insecure-requests: the embedded default is served over plain http on 127.0.0.1.
  upgradeInsecureRequests: null,
};

/**
 * Security headers on every reply: the CSP above, X-Content-Type-Options: nosniff,
 * X-Frame-Options: DENY with frame-ancestors 'none', Referrer-Policy: no-referrer. No HSTS here:
 * TLS ends at the deployment's proxy, which sets it for its own host name.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  // Built once: @fastify/helmet built helmet's middleware again on every request (parsing the CSP
  // directives each time), about a tenth of the server's CPU on a cheap authenticated read.
  const setHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: APP_CSP_DIRECTIVES },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
  app.addHook('onRequest', (request, reply, done) =>
    setHeaders(request.raw, reply.raw, (error) => done(error as Error | undefined)),
  );
}

/**
 * The Swagger UI at /api/docs brings its own CSP with hashes of its inline script and style
 * (@fastify/swagger-ui `staticCSP`); this keeps it from being framed and from upgrading http.
 */
export const docsCsp = (header: string): string =>
  header
    .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
    .replace(/\s*upgrade-insecure-requests;?/, '');
