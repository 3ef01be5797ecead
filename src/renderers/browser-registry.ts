// The schema registry in the browser: Vite bundles every file of schemas/ (import.meta.glob) and
// the engine checks and indexes them once. Node code uses src/engine/node/load-schemas.ts instead.

import { createRegistry, type Registry } from '../engine';

let registry: Registry | undefined;

export function browserRegistry(): Registry {
  registry ??= createRegistry(import.meta.glob('/schemas/**/*.json', { eager: true, import: 'default' }));
  return registry;
}
