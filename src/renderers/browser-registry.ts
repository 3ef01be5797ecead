// The schema registry in the browser: Vite bundles every file of schemas/ (import.meta.glob) and
// the engine checks and indexes them once. Node code uses src/engine/node/load-schemas.ts instead.

import { createRegistry, type Registry } from '../engine';
import { assertRenderable } from './renderer-registry';

let registry: Registry | undefined;

/** The registry of schemas/; throws at first use when a problem names a widget nobody draws. */
export function browserRegistry(): Registry {
  if (!registry) {
    const loaded = createRegistry(import.meta.glob('/schemas/**/*.json', { eager: true, import: 'default' }));
    loaded.problems.forEach((problem) => assertRenderable(problem));
    registry = loaded;
  }
  return registry;
}
