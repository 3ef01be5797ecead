import { randomBytes } from 'node:crypto';

/** A multipart/form-data body with one file part (a CSV named prices.csv in the field "file" unless told). */
export function fileUploadBody(
  content: Buffer | string,
  options: { field?: string; filename?: string; type?: string } = {},
) {
  const boundary = `----qml${randomBytes(8).toString('hex')}`;
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.field ?? 'file'}"; ` +
    `filename="${options.filename ?? 'prices.csv'}"\r\nContent-Type: ${options.type ?? 'text/csv'}\r\n\r\n`;
  return {
    payload: Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
