import type { FastifyPluginAsyncJsonSchemaToTs } from '@fastify/type-provider-json-schema-to-ts';
import type { FastifyRequest } from 'fastify';
import { isIsoDay } from '../../src/engine/history-filter';
import { addDays } from '../../src/engine/stock-demo';
import { BODY_ERRORS, envelope, errorBody, errorReplies, PUBLIC } from '../platform/reply-schemas';
import { networkPrefix, optedOut } from './client-privacy';
import type { TrackingService } from './tracking-service';

const serviceParams = {
  type: 'object',
  required: ['service'],
  properties: { service: { type: 'string', pattern: '^[a-z0-9-]{1,64}$', description: 'e.g. qml-studio' } },
} as const;

const short = (max: number) => ({ type: ['string', 'null'], maxLength: max }) as const;
const coordinate = {
  anyOf: [{ type: 'number' }, { type: 'string', maxLength: 32 }, { type: 'null' }],
} as const;

const pageViewBody = {
  type: 'object',
  additionalProperties: false,
  required: ['client_id', 'session_id', 'page'],
  properties: {
    client_id: { type: 'string', minLength: 1, maxLength: 100, description: "The browser's client_id" },
    session_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "The browser's session_data id",
    },
    page: { type: 'string', minLength: 1, maxLength: 500, description: 'The page path' },
    ip: { ...short(64), description: 'Accepted and ignored: the address is the connection’s' },
    country: short(100),
    city: { ...short(200), description: 'Accepted and not stored' },
    isp: { ...short(200), description: 'Accepted and not stored' },
    latitude: { ...coordinate, description: 'Accepted and not stored' },
    longitude: { ...coordinate, description: 'Accepted and not stored' },
    browser: short(200),
    view_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'Names this view for its time reports',
    },
  },
} as const;

const timeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['page', 'timeSpent'],
  properties: {
    page: { type: 'string', minLength: 1, maxLength: 500 },
    timeSpent: { type: 'number', minimum: 0, maximum: 10_000_000, description: 'Seconds on the page' },
    view_id: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

const trackedReply = envelope({
  type: 'object',
  required: ['stored', 'deduplicated', 'session_id'],
  properties: {
    stored: {
      type: 'boolean',
      description: 'False for Do Not Track / Global Privacy Control, or a duplicate',
    },
    deduplicated: { type: 'boolean', description: 'The same page was viewed by this client within 5 s' },
    session_id: {
      type: ['string', 'null'],
      description: "The session the view counts in (30 minutes' inactivity ends one)",
    },
  },
});

const count = { type: 'integer' } as const;
const analyticsReply = envelope({
  type: 'object',
  required: ['from', 'to', 'totals', 'days', 'top_pages', 'time_on_page', 'retention_days'],
  properties: {
    from: { type: 'string' },
    to: { type: 'string' },
    totals: {
      type: 'object',
      required: ['views', 'visitors', 'sessions', 'median_seconds'],
      properties: {
        views: count,
        visitors: count,
        sessions: count,
        median_seconds: { type: ['number', 'null'] },
      },
    },
    days: {
      type: 'array',
      items: {
        type: 'object',
        required: ['day', 'views', 'visitors', 'sessions'],
        properties: { day: { type: 'string' }, views: count, visitors: count, sessions: count },
      },
    },
    top_pages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['page', 'views', 'visitors'],
        properties: { page: { type: 'string' }, views: count, visitors: count },
      },
    },
    time_on_page: {
      type: 'array',
      items: {
        type: 'object',
        required: ['page', 'views', 'median_seconds'],
        properties: { page: { type: 'string' }, views: count, median_seconds: { type: 'number' } },
      },
    },
    retention_days: count,
  },
});

const MAX_RANGE_DAYS = 366;

/**
 * POST /track/pageview/{service}, POST /track/time/{service} (public, rate limited per network,
 * nothing stored under DNT or GPC), WebSocket /ws (time on page every 30 seconds) and the admin's
 * GET /admin/analytics?from&to.
 */
export const trackingRoutes: FastifyPluginAsyncJsonSchemaToTs<{
  Options: { tracking: TrackingService };
}> = async (app, { tracking }) => {
  const tags = ['tracking'];
  const limited = async (request: FastifyRequest) => {
    const prefix = networkPrefix(request.ip);
    return { prefix, wait: await tracking.allow(prefix) };
  };

  app.post(
    '/track/pageview/:service',
    {
      schema: {
        tags,
        summary: 'Record a page view (deduplicated within 5 s; sessions end after 30 minutes without a view)',
        security: PUBLIC,
        params: serviceParams,
        body: pageViewBody,
        response: { 200: trackedReply, ...errorReplies(...BODY_ERRORS, 429) },
      },
    },
    async (request, reply) => {
      if (optedOut(request.headers)) {
        return { success: true, data: { stored: false, deduplicated: false, session_id: null } };
      }
      const { prefix, wait } = await limited(request);
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody('Too many tracking calls; wait a minute.'));
      }
      return { success: true, data: await tracking.pageView(request.params.service, request.body, prefix) };
    },
  );

  app.post(
    '/track/time/:service',
    {
      schema: {
        tags,
        summary: 'Record the time spent on a page (sent on leaving it)',
        security: PUBLIC,
        params: serviceParams,
        body: timeBody,
        response: { 200: trackedReply, ...errorReplies(...BODY_ERRORS, 429) },
      },
    },
    async (request, reply) => {
      if (optedOut(request.headers)) {
        return { success: true, data: { stored: false, deduplicated: false, session_id: null } };
      }
      const { wait } = await limited(request);
      if (wait > 0) {
        return reply
          .code(429)
          .header('retry-after', String(wait))
          .send(errorBody('Too many tracking calls; wait a minute.'));
      }
      await tracking.time(request.params.service, request.body);
      return { success: true, data: { stored: true, deduplicated: false, session_id: null } };
    },
  );

  app.get(
    '/admin/analytics',
    {
      schema: {
        tags,
        summary:
          'Page views, unique visitors and sessions per day, top pages and median time on page (admin)',
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            from: { type: 'string', maxLength: 10, description: 'YYYY-MM-DD (default: 29 days before `to`)' },
            to: { type: 'string', maxLength: 10, description: 'YYYY-MM-DD (default: today, UTC)' },
          },
        },
        response: { 200: analyticsReply, ...errorReplies(400, 401, 403) },
      },
      onRequest: app.requireAdmin,
    },
    async (request, reply) => {
      const to = request.query.to ?? new Date().toISOString().slice(0, 10);
      const from = request.query.from ?? addDays(to, -29);
      for (const [field, value] of [
        ['/from', from],
        ['/to', to],
      ] as const) {
        if (!isIsoDay(value)) {
          const message = 'Dates use YYYY-MM-DD (e.g., 2023-05-01).';
          return reply.code(400).send(errorBody(message, [{ field, message }]));
        }
      }
      if (from > to) {
        const message = 'Start date must be before end date.';
        return reply.code(400).send(errorBody(message, [{ field: '/from', message }]));
      }
      if (addDays(from, MAX_RANGE_DAYS) < to) {
        const message = `Choose at most ${MAX_RANGE_DAYS} days.`;
        return reply.code(400).send(errorBody(message, [{ field: '/from', message }]));
      }
      return { success: true, data: await tracking.analytics({ from, to }) };
    },
  );

  // Time on page while it stays open: {service, page, timeSpent, view_id?} every 30 seconds.
  app.get('/ws', { websocket: true, schema: { hide: true } }, (socket, request) => {
    const silent = optedOut(request.headers);
    const prefix = networkPrefix(request.ip);
    // Reports without a view id count as one view per connection and page.
    const connection = crypto.randomUUID();
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (silent || isBinary) return;
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch {
        message = null;
      }
      const problem = timeMessageProblem(message);
      if (problem) {
        socket.send(JSON.stringify({ success: false, detail: problem.message, errors: [problem] }));
        return;
      }
      const { service, page, timeSpent, view_id } = message as {
        service: string;
        page: string;
        timeSpent: number;
        view_id?: string;
      };
      void tracking
        .allow(prefix)
        .then((wait) =>
          wait > 0
            ? undefined
            : tracking.time(
                service,
                { page, timeSpent, ...(view_id ? { view_id } : {}) },
                `${connection}:${page}`,
              ),
        )
        .catch((error: unknown) => app.log.warn({ err: error }, 'time report not stored'));
    });
  });
};

/** The socket's time message checked as the POST body is: the first field that is wrong. */
function timeMessageProblem(message: unknown): { field: string; message: string } | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { field: '', message: 'Send a JSON object: service, page, timeSpent.' };
  }
  const m = message as Record<string, unknown>;
  if (typeof m.service !== 'string' || !/^[a-z0-9-]{1,64}$/.test(m.service)) {
    return { field: '/service', message: '/service must be 1 to 64 lowercase letters, digits or hyphens' };
  }
  if (typeof m.page !== 'string' || m.page.length < 1 || m.page.length > 500) {
    return { field: '/page', message: '/page must be a page path of 1 to 500 characters' };
  }
  if (
    typeof m.timeSpent !== 'number' ||
    !Number.isFinite(m.timeSpent) ||
    m.timeSpent < 0 ||
    m.timeSpent > 10_000_000
  ) {
    return { field: '/timeSpent', message: '/timeSpent must be a number of seconds from 0 to 10000000' };
  }
  if (
    m.view_id !== undefined &&
    (typeof m.view_id !== 'string' || m.view_id.length < 1 || m.view_id.length > 100)
  ) {
    return { field: '/view_id', message: '/view_id must be 1 to 100 characters' };
  }
  return null;
}
