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

/** The content types the document gives for a status of an operation; null when it gives none. */
function documentedTypes(operation: Operation, status: number): string[] | null {
  const response = operation.responses[String(status)] as { content?: Record<string, unknown> } | undefined;
  return response?.content ? Object.keys(response.content) : null;
}

interface ObjectSchema {
  required?: string[];
  properties?: Record<string, unknown>;
}

/** The JSON request body schema of an operation, if it takes one. */
function jsonBodySchema(operation: Operation): ObjectSchema | null {
  const body = operation.requestBody as { content?: Record<string, { schema?: ObjectSchema }> } | undefined;
  return body?.content?.['application/json']?.schema ?? null;
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
    const wrongType: string[] = [];
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
        // The reply's content type is one the document gives for that status (a JSON 401 of an
        // event-stream route documented as text/event-stream is a mismatch).
        const types = documentedTypes(operation, reply.statusCode);
        const sent = String(reply.headers['content-type'] ?? '')
          .split(';')[0]!
          .trim();
        if (types && sent && !types.includes(sent))
          wrongType.push(`${where} sent ${sent}, documented ${types.join(', ')}`);
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
    expect(wrongType).toEqual([]);
  }, 120_000);

  it('documents the request fields a route requires, and requires the fields it documents as required', async () => {
    const mismatches: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const schema = jsonBodySchema(operation);
        if (!schema?.properties || path.includes('{')) continue;
        const documented = new Set(schema.required ?? []);
        const reply = await stack.app.inject({
          method: method.toUpperCase() as 'POST' | 'PUT',
          url: path,
          headers: { ...bearer(userToken), 'content-type': 'application/json' },
          payload: '{}',
        });
        if (reply.statusCode !== 400) continue;
        const errors = (
          (reply.json() as { errors?: { field: string; message: string }[] }).errors ?? []
        ).filter((e) => /required/i.test(e.message));
        for (const { field } of errors) {
          const name = field.split('/')[1] ?? '';
          if (name in schema.properties && !documented.has(name)) {
            mismatches.push(`${method.toUpperCase()} ${path}: requires ${name}, the document does not`);
          }
        }
        const refused = new Set(errors.map((e) => e.field.split('/')[1]));
        for (const name of documented) {
          if (!refused.has(name))
            mismatches.push(
              `${method.toUpperCase()} ${path}: documents ${name} as required, {} is not refused for it`,
            );
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('documents 414 for an address too long and 431 for headers too large on every route', async () => {
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const status of ['414', '431']) {
          if (!(status in operation.responses)) missing.push(`${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
    const long = await stack.app.inject({ url: `/api/applications/${'9'.repeat(2000)}` });
    expect([414, 404]).toContain(long.statusCode);
  });
});
