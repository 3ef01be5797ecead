import type { FastifyInstance } from 'fastify';
import { formatPointer } from '../../src/engine';

// JSON bodies, parsed with JSON.parse (which makes `__proto__` an ordinary own key, so parsing itself
// is safe) and then refused with a 400 naming the key by JSON pointer when they carry `__proto__` or
// `constructor.prototype`: keys no form of ours has, and the ones prototype-pollution payloads use
// once some later code merges the body into an object. Fastify's own guard refused them as "not
// valid JSON", which was untrue and named no field; silently removing them ('remove') would make
// a body with additionalProperties: false pass with a key the client believes was sent.

function forbiddenKey(value: unknown, at: string[] = []): string[] | null {
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const here = [...at, key];
    if (key === '__proto__') return here;
    if (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child)
      return [...here, 'prototype'];
    const found = forbiddenKey(child, here);
    if (found) return found;
  }
  return null;
}

class BodyError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly fieldErrors?: { field: string; message: string }[],
  ) {
    super(message);
  }
  readonly statusCode = 400;
}

/** JSON as above; and no text/plain parser: a body the API cannot read is a 415, not a 400 later. */
export function useJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const body = String(text);
    if (body === '') return done(new BodyError('empty', 'FST_ERR_CTP_EMPTY_JSON_BODY'), undefined);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return done(new BodyError('invalid', 'FST_ERR_CTP_INVALID_JSON_BODY'), undefined);
    }
    const path = forbiddenKey(value);
    if (path) {
      const field = formatPointer(path);
      const message = `${field} is a key the API refuses (it could alter object prototypes)`;
      return done(new BodyError(message, 'FORBIDDEN_KEY', [{ field, message }]), undefined);
    }
    done(null, value);
  });
}
