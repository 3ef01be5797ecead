// The schema registry in the browser, built from the schema files the server loaded (GET /api/schemas,
// its SCHEMAS_DIR), so a problem file added there reaches the forms, pipeline and outputs with a restart
// and no rebuild. The module waits for the files (top-level await): a page that imports it is drawn
// once they are in. Unit tests, which have no server, read the repository's schemas/ instead. Node code
// uses src/engine/node/load-schemas.ts.

import { createRegistry, type Registry, type SchemaSources } from '../engine';
import { assertRenderable } from './renderer-registry';

async function schemaSources(): Promise<SchemaSources> {
  // A constant at build time: the production bundle has no copy of the repository's schemas.
  if (import.meta.env.MODE === 'test') return (await import('./repository-schemas')).REPOSITORY_SCHEMAS;
  const reply = await fetch('/api/schemas', { credentials: 'same-origin' });
  if (!reply.ok) {
    throw new Error(
      `The problem definitions could not be loaded (GET /api/schemas answered ${reply.status}).`,
    );
  }
  return ((await reply.json()) as { data: SchemaSources }).data;
}

const sources = await schemaSources();
let registry: Registry | undefined;

/** The registry of the server's schemas; throws at first use when a problem names a widget nobody draws. */
export function browserRegistry(): Registry {
  if (!registry) {
    const loaded = createRegistry(sources);
    loaded.problems.forEach((problem) => assertRenderable(problem));
    registry = loaded;
  }
  return registry;
}
