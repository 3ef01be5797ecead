import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeForLog } from '../platform/error-handler';
import { MAX_ID } from '../platform/id-schemas';
import { errorReplies } from '../platform/reply-schemas';
import { isFinal } from './job-states';
import type { JobEventRecord } from './jobs-repository';
import type { JobsService } from './jobs-service';

/** The query of a route that streams a job's events: `after`, the last sequence number seen. */
const eventStreamQuery = {
  type: 'object',
  properties: {
    after: {
      type: 'integer',
      minimum: 0,
      maximum: MAX_ID,
      description: 'Only events with a larger sequence number (omit for all)',
    },
  },
} as const;

/**
 * The schema parts every route that streams a job's events shares (spread into its `schema` beside
 * its tags, summary and params): the `after` query, and a text/event-stream 200 (what
 * streamJobEvents writes) or a 400, 401 or 404 before the stream starts.
 */
export const eventStreamSchema = {
  querystring: eventStreamQuery,
  // No `produces`: it would document the JSON refusals below as text/event-stream too.
  response: {
    200: {
      description: 'A text/event-stream; each `data:` line is one event',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    ...errorReplies(400, 401, 404),
  },
} as const;

/**
 * Streams a job's events as server-sent events: the stored ones after `after`, then live ones, until
 * the job ends (its final status event) or the client goes. One implementation for every route that
 * streams a job (GET /jobs/:id/events, GET /application-outputs/:id/stream). The caller has checked
 * that the job exists and the caller may see it; `current` re-reads its status.
 */
export async function streamJobEvents(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  jobs: Pick<JobsService, 'subscribe' | 'events'>;
  jobId: number;
  /** Only events with a larger sequence number (-1 for all). */
  after: number;
  /** The job's status now, or null when it is gone. */
  current: () => Promise<{ status: string } | null>;
}): Promise<void> {
  const { request, reply, jobs, jobId, current } = options;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  });
  let lastSeq = options.after;
  let ended = false;
  const finish = () => {
    if (ended) return;
    ended = true;
    unsubscribe();
    clearInterval(keepAlive);
    raw.end();
  };
  const send = (event: JobEventRecord) => {
    if (ended || event.seq <= lastSeq) return;
    lastSeq = event.seq;
    raw.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (event.type === 'status' && isFinal(String(event.payload.status))) finish();
  };
  const buffered: JobEventRecord[] = [];
  let replaying = true;
  const unsubscribe = jobs.subscribe(jobId, (event) => (replaying ? buffered.push(event) : send(event)));
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
  request.raw.on('close', finish);
  try {
    for (const event of await jobs.events(jobId, lastSeq)) send(event);
    replaying = false;
    for (const event of buffered.sort((a, b) => a.seq - b.seq)) send(event);
    // Subscribed before this read, so a job not final here still sends its final status live;
    // a final one has nothing more to send (its final status may lie at or before `after`).
    const now = await current();
    if (!now || isFinal(now.status)) finish();
  } catch (error) {
    request.log.error({ jobId, err: describeForLog(error) }, 'job event stream failed');
    finish();
  }
}
