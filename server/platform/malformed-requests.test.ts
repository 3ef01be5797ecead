// Malformed requests answer 400 in the one error envelope, never 500: every execute-job route of the
// problem registry without a body, with `{}`, and without its query; every route's error replies are
// documented with that one envelope.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { errorReply } from './reply-schemas';

describe('malformed requests and the error envelope', () => {
  let stack: TestStack;
  let userId: number;
  let token: string;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    token = await stack.userToken('alice@example.com');
    userId = (await stack.services.repositories.users.findByEmail('alice@example.com'))!.id;
  }, 120_000);
  afterAll(async () => stack?.close());

  /** Each execute-job route of the registry: its URL for the caller and a full query. */
  const executeRoutes = () =>
    stack.services.registry.problems
      .filter((p) => p.job.request.method === 'POST' && p.job.request.path.includes('/execute-job/'))
      .map((problem) => {
        const request = problem.job.request;
        const url = `/api${request.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) =>
          name === 'userId' ? String(userId) : 'FCN',
        )}`;
        const keys = (request.query ?? []).map((entry) => entry.to.split('/').at(-1)!);
        const query = keys.map((key) => `${key}=${key === 'user_id' ? userId : 1}`).join('&');
        return { problem: problem.id, url, query, keys };
      });

  it('has execute-job routes to try', () => {
    expect(executeRoutes().length).toBeGreaterThanOrEqual(5);
  });

  it('answers 400 with a message naming the field to no body, {} and a missing query', async () => {
    for (const route of executeRoutes()) {
      const withQuery = route.query ? `${route.url}?${route.query}` : route.url;
      const tries = [
        { what: 'no body', url: withQuery, payload: undefined, field: /body/ },
        { what: '{}', url: withQuery, payload: {}, field: /\bid\b/ },
        ...(route.keys.length > 0
          ? [{ what: 'no query', url: route.url, payload: { id: 1 }, field: new RegExp(route.keys[0]!) }]
          : []),
      ];
      for (const attempt of tries) {
        const reply = await stack.app.inject({
          method: 'POST',
          url: attempt.url,
          headers: bearer(token),
          ...(attempt.payload !== undefined && { payload: attempt.payload }),
        });
        const label = `${route.problem} ${attempt.what}: ${reply.body}`;
        expect(reply.statusCode, label).toBe(400);
        const body = reply.json();
        expect(body.success, label).toBe(false);
        expect(body.message, label).toMatch(/^Failed to execute the application! /);
        expect(body.message, label).toMatch(attempt.field);
        expect(body.detail, label).toEqual(expect.any(String));
      }
    }
  });

  it('refuses a NUL character anywhere in a JSON body with a 400 naming the field (PostgreSQL cannot store it)', async () => {
    const reply = await stack.app.inject({
      method: 'POST',
      url: '/api/contact',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Ada', email: 'ada@example.com', message: { text: 'a\u0000b' } }),
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toEqual({
      success: false,
      detail: '/message/text contains a NUL character, which the API does not accept',
      errors: [
        {
          field: '/message/text',
          message: '/message/text contains a NUL character, which the API does not accept',
        },
      ],
    });
  });

  it('are the one envelope on every route, so any refusal serialises under any error status', async () => {
    const document = (await stack.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<string, { responses?: Record<string, { content?: Record<string, { schema: Schema }> }> }>
      >;
    };
    // The health report answers 503 with the report itself when a part is down: not a refusal.
    const reports = new Set(['get /api/health 503']);
    const others: string[] = [];
    let checked = 0;
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400 || reports.has(`${method} ${route} ${status}`)) continue;
          for (const [type, { schema }] of Object.entries(response.content ?? {})) {
            checked += 1;
            // Nothing required beyond the envelope's own, and the envelope's fields exactly as it has
            // them (a route may add optional fields, e.g. where a refused sign-in goes next).
            const extraRequired = (schema.required ?? []).filter(
              (key) => !errorReply.required.includes(key as never),
            );
            const differing = Object.entries(errorReply.properties).filter(
              ([key, property]) =>
                JSON.stringify(stripDescriptions(schema.properties?.[key])) !==
                JSON.stringify(stripDescriptions(property)),
            );
            if (extraRequired.length > 0 || differing.length > 0) {
              others.push(
                `${method} ${route} ${status} ${type}: requires ${extraRequired.join(', ')}; differs in ${differing.map(([k]) => k).join(', ')}`,
              );
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(others).toEqual([]);
  });
});

interface Schema {
  required?: string[];
  properties?: Record<string, unknown>;
}

/** A schema without its descriptions (each status describes itself). */
function stripDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripDescriptions);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== 'description')
      .map(([key, value]) => [key, stripDescriptions(value)]),
  );
}
