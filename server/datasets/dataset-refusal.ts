// The one refusal of the datasets area: an upload, a URL fetch or a dataset reference that cannot be
// used. The message is plain words the user can act on (it is shown after 'Error uploading file. '
// for uploads and in an output's log for jobs).

export class DatasetRefusal extends Error {
  override name = 'DatasetRefusal';

  constructor(
    message: string,
    /** The HTTP status an API reply uses for it: 400 bad file or reference, 404 not found, 413 too large. */
    readonly status: 400 | 404 | 413 = 400,
  ) {
    super(message);
  }
}

const MIB = 1024 * 1024;

/** Bytes for messages: "100 MB", "0.5 MB", "1024 MB" (1 MB = 1,048,576 bytes); under 0.1 MB in KB. */
export function formatMegabytes(bytes: number): string {
  if (bytes < MIB / 10) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / MIB;
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}
