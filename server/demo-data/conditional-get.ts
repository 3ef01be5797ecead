/** One demo data reply as sent: its bytes and the validators of a conditional request. */
export interface DemoFile {
  /** The reply's bytes (the envelope), sent as they are. */
  body: Buffer;
  /** Strong validator: a hash of the content, so the same bytes always carry the same tag. */
  etag: string;
  /** When the run it describes last changed, whole seconds (HTTP dates have no fractions). */
  lastModified: Date;
}

/**
 * RFC 9110 section 13.1: If-None-Match (weak comparison, `*` matches) decides when present;
 * otherwise If-Modified-Since. True when the client's copy is current (answer 304).
 */
export function notModified(
  file: Pick<DemoFile, 'etag' | 'lastModified'>,
  headers: { 'if-none-match'?: string; 'if-modified-since'?: string },
): boolean {
  const tags = headers['if-none-match'];
  if (tags !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return tags.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(file.etag));
  }
  const since = headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && file.lastModified.getTime() <= time;
}
