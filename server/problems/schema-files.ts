// What the browser reads of the schemas directory the server loaded (SCHEMAS_DIR):
// - GET /api/schemas: every JSON file, keyed by its path in that directory. The browser builds its
//   registry from them instead of a copy bundled at build time, so a problem file added to or changed
//   in SCHEMAS_DIR reaches the forms, pipeline and outputs with a restart and no rebuild.
// - GET /api/schemas/validators.js: the validators the browser runs for those files (its CSP has no
//   'unsafe-eval', so it cannot compile them), written from this registry by the engine's generator.
// Each body, its ETag and its gzip copy are made once: the files when the server starts, the
// validators on first use (writing them takes seconds of CPU: server/main.ts asks right after it
// listens, and a server that never serves the web app, such as a test's, does not spend it; a restart
// with the same files and code reads them back from validators-cache.ts).

import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

import type { Registry, SchemaSources } from '../../src/engine';
import { generateValidatorsModule } from '../../src/engine/node/generate-validators';
import { cachedValidators } from './validators-cache';

/** A reply body made once, with its gzip copy and a strong ETag over its bytes. */
export class ServedBody {
  readonly gzipped: Buffer;
  readonly etag: string;

  constructor(readonly body: Buffer) {
    this.gzipped = gzipSync(body);
    this.etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  }
}

export class SchemaFiles {
  /** `{"success":true,"data":{<path>: <file>}}`, GET /api/schemas's reply. */
  readonly files: ServedBody;
  private validatorsBody: ServedBody | undefined;

  constructor(
    sources: SchemaSources,
    /** The registry made from the same sources (after they are serialised here). */
    private readonly registry: () => Registry,
  ) {
    // Serialised before anything else reads the sources: the reply is the files as they are on disk.
    this.files = new ServedBody(Buffer.from(JSON.stringify({ success: true, data: sources })));
  }

  /** The ES module of the registry's validators (generate-validators.ts), written on first use. */
  get validators(): ServedBody {
    this.validatorsBody ??= new ServedBody(
      Buffer.from(cachedValidators(this.files.body, () => generateValidatorsModule(this.registry()))),
    );
    return this.validatorsBody;
  }
}
