import type { FastifyReply, FastifyRequest } from 'fastify';

/** The validators of a conditional GET: an entity tag and, where the reply has one, its last change. */
export interface Validators {
  /** Strong validator: a hash of the content, so the same bytes always carry the same tag. */
  etag: string;
  /** Whole seconds (HTTP dates have no fractions). */
  lastModified?: Date;
}

/**
 * RFC 9110 section 13.1: If-None-Match (weak comparison, `*` matches) decides when present;
 * otherwise If-Modified-Since. True when the client's copy is current (answer 304).
 */
export function notModified(
  file: Validators,
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
): boolean {
  const tags = headers['if-none-match'];
  if (tags !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return tags.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(file.etag));
  }
  const since = headers['if-modified-since'];
  if (since === undefined || file.lastModified === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && file.lastModified.getTime() <= time;
}

/** A reply body with its validators, its media type and, when made once beforehand, its gzip form. */
export interface ConditionalBody extends Validators {
  body: string | Buffer;
  type: string;
  gzipped?: Buffer;
}

/**
 * Sends a body that clients keep and revalidate: ETag (and Last-Modified when known), `no-cache` so
 * the client asks every time and sees a change at once, 304 when its copy is current (notModified),
 * and the gzip form to a client that takes it (`vary: accept-encoding` then).
 */
export function sendConditional(request: FastifyRequest, reply: FastifyReply, content: ConditionalBody) {
  reply.header('etag', content.etag).header('cache-control', 'no-cache');
  if (content.lastModified) reply.header('last-modified', content.lastModified.toUTCString());
  if (content.gzipped) reply.header('vary', 'accept-encoding');
  const headers = request.headers as { 'if-none-match'?: string; 'if-modified-since'?: string };
  if (notModified(content, headers)) return reply.code(304).send();
  reply.type(content.type);
  if (content.gzipped && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.code(200).header('content-encoding', 'gzip').send(content.gzipped);
  }
  return reply.code(200).send(content.body);
}
