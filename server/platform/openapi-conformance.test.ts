import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';

// A small conformance check of the OpenAPI document against the server itself: for every route
// the document lists, real requests (no token, a bad token, a non-admin, a bad body, a body of the
// wrong type, a body too large, an unknown id) must answer only statuses the route documents, each
// error in the one envelope, and a route is marked public (`security: []`) exactly when it serves
// anonymous callers.

interface Operation {
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

/** Whether the document says this status answers with the error envelope (health's 503 does not). */
function usesErrorEnvelope(operation: Operation, status: number): boolean {
  const response = operation.responses[String(status)] as
    { content?: Record<string, { schema?: { required?: string[] } }> } | undefined;
  return Boolean(response?.content?.['application/json']?.schema?.required?.includes('detail'));
}

const UNKNOWN_ID: Record<string, string> = {
  id: '2147483000',
  userId: '2147483000',
  appId: '2147483000',
  applicationId: '2147483000',
};
const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => UNKNOWN_ID[name] ?? 'unknown');

describe('the OpenAPI document tells the truth', () => {
  let stack: TestStack;
  let document: Document;
  let userToken: string;
  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    userToken = await stack.userToken('plain-user@example.com');
    const reply = await stack.app.inject({ url: '/api/openapi.json' });
    expect(reply.statusCode).toBe(200);
    document = reply.json() as Document;
  });
  afterAll(async () => stack?.close());

  it('documents every status a route answers, with the error envelope, and marks public routes', async () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(9);
    const undocumented: string[] = [];
    for (const { path, method, operation } of operations) {
      const url = fill(path);
      const hasBody = method === 'post' || method === 'put';
      const requests: { name: string; headers: Record<string, string>; payload?: string }[] = [
        { name: 'no token', headers: {} },
        { name: 'bad token', headers: bearer('not-a-token') },
        { name: 'a non-admin', headers: bearer(userToken) },
        { name: 'an unknown id', headers: bearer(stack.adminToken) },
      ];
      if (hasBody) {
        const json = { ...bearer(stack.adminToken), 'content-type': 'application/json' };
        requests.push(
          { name: 'a bad body', headers: json, payload: '{"unexpected": [1, 2]}' },
          { name: 'a body that is not JSON', headers: json, payload: '{"shots": ' },
          { name: 'a __proto__ key', headers: json, payload: '{"__proto__": {"admin": true}}' },
          { name: 'a body too large', headers: json, payload: `"${'x'.repeat(1024 * 1024 + 1)}"` },
          {
            name: 'a body of the wrong type',
            headers: { ...bearer(stack.adminToken), 'content-type': 'text/plain' },
            payload: 'hello',
          },
        );
      }
      const answered = new Set<number>();
      for (const request of requests) {
        const reply = await stack.app.inject({
          method: method.toUpperCase() as 'GET' | 'POST' | 'PUT',
          url,
          headers: request.headers,
          ...(request.payload !== undefined && { payload: request.payload }),
        });
        answered.add(reply.statusCode);
        const where = `${method.toUpperCase()} ${path} with ${request.name} -> ${reply.statusCode}`;
        if (!(String(reply.statusCode) in operation.responses)) undocumented.push(where);
        expect(reply.statusCode, where).not.toBe(500);
        if (reply.statusCode >= 400 && usesErrorEnvelope(operation, reply.statusCode)) {
          expect(reply.json(), where).toMatchObject({ success: false, detail: expect.any(String) });
        }
      }
      const publicRoute = Array.isArray(operation.security) && operation.security.length === 0;
      expect(
        publicRoute,
        `${method.toUpperCase()} ${path}: public exactly when anonymous callers get in`,
      ).toBe(!answered.has(401));
    }
    expect(undocumented).toEqual([]);
  }, 120_000);
});
