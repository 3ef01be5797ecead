import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';

// Every refusal, whoever produces it (route schema, body parser, router, not-found), answers in the
// one envelope with `detail` for the client and JSON pointers for fields.
describe('one error envelope', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
  });
  afterAll(async () => stack?.close());

  const postJson = (payload: string, contentType = 'application/json') =>
    stack.app.inject({
      method: 'POST',
      url: '/api/diagnostics/self-test',
      headers: { ...bearer(stack.adminToken), 'content-type': contentType },
      payload,
    });

  it('refuses a __proto__ key as such, naming it by JSON pointer, not as invalid JSON', async () => {
    const reply = await postJson('{"shots": 5, "nested": {"__proto__": {"admin": true}}}');
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toEqual({
      success: false,
      detail: '/nested/__proto__ is a key the API refuses (it could alter object prototypes)',
      errors: [
        {
          field: '/nested/__proto__',
          message: '/nested/__proto__ is a key the API refuses (it could alter object prototypes)',
        },
      ],
    });
    const constructor = await postJson('{"constructor": {"prototype": {"admin": true}}}');
    expect(constructor.json()).toMatchObject({ errors: [{ field: '/constructor/prototype' }] });
  });

  it('names fields by JSON pointer, escaped', async () => {
    const reply = await postJson('{"a/b~c": 1}');
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toMatchObject({
      success: false,
      errors: [{ field: '/a~1b~0c', message: '/a~1b~0c is not a known field' }],
    });
  });

  it.each([
    ['invalid JSON', () => postJson('{"shots": '), 400, 'The request body is not valid JSON'],
    [
      'a body too large',
      () => postJson(`"${'x'.repeat(1024 * 1024)}"`),
      413,
      'The request body is too large',
    ],
    [
      'a content type the API does not read',
      () => postJson('shots=5', 'text/plain'),
      415,
      'This content type is not accepted here; send JSON (or a form where the route takes one)',
    ],
    [
      'a path parameter too long',
      () => stack.app.inject({ url: `/api/jobs/${'1'.repeat(500)}`, headers: bearer(stack.adminToken) }),
      414,
      'The address is too long',
    ],
    ['an unknown path', () => stack.app.inject({ url: '/api/no-such-thing' }), 404, 'Not found'],
  ] as const)('answers %s in the envelope', async (_name, send, status, detail) => {
    const reply = await send();
    expect(reply.statusCode).toBe(status);
    expect(reply.headers['content-type']).toContain('application/json');
    expect(reply.json()).toEqual({ success: false, detail });
  });
});
