// The schema files as the browser reads them (GET /api/schemas): every JSON file of the schemas
// directory the server loaded (SCHEMAS_DIR), keyed by its path in that directory. The browser builds
// its registry from them instead of a copy bundled at build time, so a problem file added to or
// changed in SCHEMAS_DIR reaches the forms, pipeline and outputs with a restart and no rebuild.
// The files are read once at start: the body, its ETag and its gzip copy are made once here.

import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

import type { SchemaSources } from '../../src/engine';

export class SchemaFiles {
  /** `{"success":true,"data":{<path>: <file>}}`, the route's reply. */
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;

  constructor(sources: SchemaSources) {
    // Serialised before anything else reads the sources: the reply is the files as they are on disk.
    this.body = Buffer.from(JSON.stringify({ success: true, data: sources }));
    this.gzipped = gzipSync(this.body);
    this.etag = `"${createHash('sha256').update(this.body).digest('base64url').slice(0, 27)}"`;
  }
}
