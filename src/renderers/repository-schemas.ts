// The repository's schemas/ bundled by Vite, for the unit tests' browser registry (they run without the
// server that answers GET /api/schemas). The app itself never loads this module.

import type { SchemaSources } from '../engine';

export const REPOSITORY_SCHEMAS: SchemaSources = import.meta.glob('/schemas/**/*.json', {
  eager: true,
  import: 'default',
});
