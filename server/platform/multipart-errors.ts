/** What an upload route answers when a multipart body cannot be parsed. */
export const MALFORMED_MULTIPART =
  'The upload is not a well-formed multipart form (its parts do not match the boundary it declares).';

/**
 * busboy's own parse failures ('Unexpected end of multipart data', 'Malformed part header', ...) are
 * plain Errors without a system `code`; a disk failure (ENOSPC, EACCES) has one and stays a server error.
 */
export const isMalformedMultipart = (error: unknown): boolean =>
  error instanceof Error &&
  !('code' in error) &&
  /unexpected end of (form|file|multipart data)|malformed part header|boundary/i.test(error.message);
