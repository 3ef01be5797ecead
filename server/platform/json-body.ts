import type { FastifyInstance } from 'fastify';
import { formatPointer } from '../../src/engine';

// JSON bodies, parsed with JSON.parse (which makes `__proto__` an ordinary own key, so parsing itself
// is safe) and then refused with a 400 naming the key by JSON pointer when they carry `__proto__` or
// `constructor.prototype`: keys no form of ours has, and the ones prototype-pollution payloads use
// once some later code merges the body into an object. Fastify's own guard refused them as "not
// valid JSON", which was untrue and named no field; silently removing them ('remove') would make
// a body with additionalProperties: false pass with a key the client believes was sent.

// A NUL character in a string or a key is refused the same way: PostgreSQL cannot store it in text,
// so a route that keeps the value would fail with a 500 instead of naming the field.

interface Refused {
  path: string[];
  reason: string;
}

const PROTOTYPE = 'is a key the API refuses (it could alter object prototypes)';
const NUL = 'contains a NUL character, which the API does not accept';

function refusedPart(value: unknown, at: string[] = []): Refused | null {
  if (typeof value === 'string') return value.includes('\u0000') ? { path: at, reason: NUL } : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const here = [...at, key];
    if (key === '__proto__') return { path: here, reason: PROTOTYPE };
    if (key === 'constructor' && typeof child === 'object' && child !== null && 'prototype' in child)
      return { path: [...here, 'prototype'], reason: PROTOTYPE };
    if (key.includes('\u0000')) return { path: here, reason: NUL };
    const found = refusedPart(child, here);
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
    const refused = refusedPart(value);
    if (refused) {
      const field = formatPointer(refused.path);
      const message = `${field || 'The body'} ${refused.reason}`;
      return done(new BodyError(message, 'FORBIDDEN_KEY', [{ field, message }]), undefined);
    }
    done(null, value);
  });
}
