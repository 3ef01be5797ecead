import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startStack, type TestStack } from '../test-support/harness';
import { networkPrefix } from './client-privacy';

// Tracking through the real app and database: the three calls' shapes and refusals, the 5-second
// de-duplication, the 30-minute session, Do Not Track / GPC storing nothing, no raw address stored,
// retention, and the admin's analytics built from the rows.

const view = (over: Record<string, unknown> = {}) => ({
  client_id: 'client-a',
  session_id: 'session-a',
  page: '/examples',
  ip: '198.51.100.7',
  country: 'NL',
  city: 'Delft',
  isp: 'Some ISP',
  latitude: 52.01,
  longitude: 4.36,
  browser: 'Chromium',
  ...over,
});

describe('tracking', () => {
  let stack: TestStack;
  let app: FastifyInstance;
  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload, headers, remoteAddress: '203.0.113.45' });
  const rows = async (sql: string) => (await stack.services.db.query<Record<string, unknown>>(sql)).rows;

  beforeAll(async () => {
    stack = await startStack({ database: 'pglite', queue: 'in-process' });
    app = stack.app;
  });
  afterAll(async () => stack?.close());

  it('records a page view with the network prefix only, and drops the third-party fields', async () => {
    const reply = await post('/api/track/pageview/qml-studio', view());
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({
      success: true,
      data: { stored: true, deduplicated: false, session_id: 'session-a' },
    });
    const [row] = await rows('select * from page_views');
    expect(row).toMatchObject({
      service: 'qml-studio',
      page: '/examples',
      client_id: 'client-a',
      ip_prefix: '203.0.113.0/24',
      country: 'NL',
      browser: 'Chromium',
    });
    const stored = JSON.stringify(row);
    for (const secret of ['203.0.113.45', '198.51.100.7', 'Delft', 'Some ISP', '52.01'])
      expect(stored).not.toContain(secret);
  });

  it('ignores the same page from the same client within 5 seconds, and counts it after', async () => {
    const again = await post('/api/track/pageview/qml-studio', view());
    expect(again.json()).toMatchObject({ data: { stored: false, deduplicated: true } });
    const otherPage = await post('/api/track/pageview/qml-studio', view({ page: '/profile' }));
    expect(otherPage.json()).toMatchObject({ data: { stored: true } });
    await stack.services.db.query(`update page_views set created_at = created_at - interval '6 seconds'`);
    const later = await post('/api/track/pageview/qml-studio', view());
    expect(later.json()).toMatchObject({
      data: { stored: true, deduplicated: false, session_id: 'session-a' },
    });
    expect(await rows(`select id from page_views where page = '/examples'`)).toHaveLength(2);
  });

  it('ends a session after 30 minutes without a view', async () => {
    await stack.services.db.query(`update page_views set created_at = created_at - interval '29 minutes'`);
    const within = await post(
      '/api/track/pageview/qml-studio',
      view({ page: '/a', session_id: 'session-b' }),
    );
    expect(within.json()).toMatchObject({ data: { session_id: 'session-a' } }); // still the open session
    await stack.services.db.query(`update page_views set created_at = created_at - interval '31 minutes'`);
    const fresh = await post('/api/track/pageview/qml-studio', view({ page: '/b', session_id: 'session-b' }));
    expect(fresh.json()).toMatchObject({ data: { session_id: 'session-b' } });
    await stack.services.db.query(`update page_views set created_at = created_at - interval '31 minutes'`);
    // The client kept its old id after the session expired: the server starts a new one all the same.
    const reused = await post(
      '/api/track/pageview/qml-studio',
      view({ page: '/c', session_id: 'session-b' }),
    );
    const key = (reused.json() as { data: { session_id: string } }).data.session_id;
    expect(key).not.toBe('session-b');
    expect(await rows(`select distinct session_key from page_views`)).toHaveLength(3);
  });

  it('stores nothing under Do Not Track or Global Privacy Control', async () => {
    const before = (await rows('select count(*)::int as n from page_views'))[0]!.n;
    for (const headers of [{ dnt: '1' }, { 'sec-gpc': '1' }] as Record<string, string>[]) {
      const v = await post('/api/track/pageview/qml-studio', view({ client_id: 'private' }), headers);
      expect(v.json()).toEqual({
        success: true,
        data: { stored: false, deduplicated: false, session_id: null },
      });
      const t = await post(
        '/api/track/time/qml-studio',
        { page: '/x', timeSpent: 12, view_id: 'private-view' },
        headers,
      );
      expect(t.statusCode).toBe(200);
    }
    expect((await rows('select count(*)::int as n from page_views'))[0]!.n).toBe(before);
    expect(await rows(`select * from page_views where client_id = 'private'`)).toEqual([]);
    expect(await rows(`select * from page_times where view_id = 'private-view'`)).toEqual([]);
  });

  it('keeps the longest time report of a view, from the POST and the socket alike', async () => {
    const t1 = await post('/api/track/time/qml-studio', {
      page: '/examples',
      timeSpent: 30,
      view_id: 'view-1',
    });
    expect(t1.json()).toMatchObject({ success: true, data: { stored: true } });
    const socket = await app.injectWS('/api/ws');
    const refusals: unknown[] = [];
    socket.on('message', (d: Buffer) => refusals.push(JSON.parse(d.toString())));
    socket.send(
      JSON.stringify({ service: 'qml-studio', page: '/examples', timeSpent: 60, view_id: 'view-1' }),
    );
    socket.send(JSON.stringify({ service: 'qml-studio', page: '/examples' }));
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      const [row] = await rows(`select seconds from page_times where view_id = 'view-1'`);
      if (row?.seconds === 60 && refusals.length === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    socket.terminate();
    await post('/api/track/time/qml-studio', { page: '/examples', timeSpent: 45, view_id: 'view-1' });
    expect(await rows(`select seconds from page_times where view_id = 'view-1'`)).toEqual([{ seconds: 60 }]);
    expect(refusals).toEqual([
      {
        success: false,
        detail: '/timeSpent must be a number of seconds from 0 to 10000000',
        errors: [
          { field: '/timeSpent', message: '/timeSpent must be a number of seconds from 0 to 10000000' },
        ],
      },
    ]);
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    const missing = await post('/api/track/pageview/qml-studio', { session_id: 's', page: '/' });
    expect(missing.statusCode).toBe(400);
    expect(JSON.stringify(missing.json())).toContain('/client_id');
    const negative = await post('/api/track/time/qml-studio', { page: '/', timeSpent: -1 });
    expect(negative.statusCode).toBe(400);
    expect(JSON.stringify(negative.json())).toContain('/timeSpent');
    const badService = await post('/api/track/pageview/Bad Service!', view());
    expect(badService.statusCode).toBe(400);
    const extra = await post('/api/track/time/qml-studio', { page: '/', timeSpent: 1, secret: 1 });
    expect(extra.statusCode).toBe(400);
  });

  it('rate limits a network to 120 tracking calls a minute', async () => {
    const from = (i: number) =>
      app.inject({
        method: 'POST',
        url: '/api/track/time/qml-studio',
        payload: { page: '/rate', timeSpent: i },
        remoteAddress: '192.0.2.9',
      });
    const codes: number[] = [];
    for (let i = 0; i < 121; i++) codes.push((await from(i)).statusCode);
    expect(codes.slice(0, 120).every((c) => c === 200)).toBe(true);
    const last = await from(121);
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('gives the admin views, visitors and sessions per day, top pages and the median time on page', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const anonymous = await app.inject({ method: 'GET', url: '/api/admin/analytics' });
    expect(anonymous.statusCode).toBe(401);
    const reply = await app.inject({
      method: 'GET',
      url: `/api/admin/analytics?from=${today}&to=${today}`,
      headers: bearer(stack.adminToken),
    });
    expect(reply.statusCode).toBe(200);
    const data = (reply.json() as { data: Record<string, any> }).data; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test reads the JSON
    const views = (await rows(`select count(*)::int as n from page_views`))[0]!.n;
    expect(data.totals).toMatchObject({ views, visitors: 1, sessions: 3 });
    expect(data.days).toEqual([{ day: today, views, visitors: 1, sessions: 3 }]);
    expect(data.top_pages[0]).toEqual({ page: '/examples', views: 2, visitors: 1 });
    expect(data.time_on_page.find((p: { page: string }) => p.page === '/examples')).toEqual({
      page: '/examples',
      views: 1,
      median_seconds: 60,
    });
    const bad = await app.inject({
      method: 'GET',
      url: '/api/admin/analytics?from=2026-13-01',
      headers: bearer(stack.adminToken),
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('/from');
  });

  it('deletes events past the retention', async () => {
    await stack.services.db.query(
      `update page_views set created_at = now() - interval '200 days' where page = '/a'`,
    );
    await stack.services.db.query(
      `update page_times set updated_at = now() - interval '200 days' where page = '/rate'`,
    );
    const { TrackingRepository } = await import('./tracking-repository');
    const gone = await new TrackingRepository(stack.services.db).purgeOlderThan(180);
    expect(gone.views).toBe(1);
    expect(gone.times).toBeGreaterThan(100);
  });

  it('keeps IPv4 /24 and IPv6 /48 prefixes', () => {
    expect(networkPrefix('203.0.113.45')).toBe('203.0.113.0/24');
    expect(networkPrefix('::ffff:203.0.113.45')).toBe('203.0.113.0/24');
    expect(networkPrefix('2001:db8:abcd:12::1')).toBe('2001:db8:abcd::/48');
    expect(networkPrefix('2001:db8::1')).toBe('2001:db8:0::/48');
    expect(networkPrefix('not an address')).toBeNull();
  });
});
