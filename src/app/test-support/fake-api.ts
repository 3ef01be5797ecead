// A stand-in for the API in jsdom tests: answers fetch by method and path, and records every call.
import { vi } from 'vitest';

export interface Call {
  method: string;
  path: string;
  body: unknown;
}
type Handler = (
  call: Call,
) => { status?: number; body?: unknown } | Promise<{ status?: number; body?: unknown }>;

/** Stubs global fetch; `routes` keys are 'GET /api/users/me' (the query string is not part of the key). */
export function fakeApi(routes: Record<string, Handler>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const text =
      typeof init.body === 'string'
        ? init.body
        : init.body instanceof URLSearchParams
          ? init.body.toString()
          : null;
    let body: unknown = text;
    try {
      body = text && JSON.parse(text);
    } catch {
      // form-encoded: kept as text
    }
    const call = { method, path: url.pathname + url.search, body };
    calls.push(call);
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler)
      return new Response(JSON.stringify({ success: false, detail: 'Not Found' }), { status: 404 });
    const { status = 200, body: reply = { success: true } } = await handler(call);
    return new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json' } });
  });
  return calls;
}

export const account = {
  id: 7,
  name: 'ada_l',
  email: 'ada@example.org',
  email_verified: true,
  is_approved: true,
  roles: ['user'],
  dob: '1990-04-01',
  image_url: null,
  provided_timezone: 'Europe/Berlin',
  has_custom_ibmq_token: false,
};
