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
