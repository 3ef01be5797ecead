import type { TestProject } from 'vitest/node';
import { writePgliteTemplate } from './pglite-template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file of a dumped, fully migrated PGlite data directory (writePgliteTemplate). */
    pgliteTemplate: string;
  }
}

/** The server project's global setup: one migrated PGlite template per run (see pglite-template.ts). */
export default async function setup(project: TestProject) {
  const template = await writePgliteTemplate();
  project.provide('pgliteTemplate', template.file);
  return () => template.remove();
}
