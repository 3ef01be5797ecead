// Once per e2e run, before any file: the server bundle for the sources as they are and the migrated
// database template the products copy (tests/e2e/harness.ts). Both are kept between runs under
// node_modules/.cache/qmlstudio-e2e-server/ and only made again when what they are made from changed,
// so `make test` on a clean clone makes them here, and a later run finds them.
//
// Also one Chromium for the whole run (a browser server the files connect to: launchBrowser in
// harness.ts), started beside the bundle: each file opens its own contexts in it instead of starting
// and stopping a Chromium of its own (about 1 CPU-s and 2-3 s of a loaded machine per file).

import type { TestProject } from 'vitest/node';

import { launchBrowserServer, makeDatabaseTemplate } from './harness';
import { serverBundle } from './server-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket address (BrowserServer.wsEndpoint), or '' to launch one per file. */
    browserWsEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const [browserServer] = await Promise.all([
    launchBrowserServer(),
    serverBundle().then(() => makeDatabaseTemplate()),
  ]);
  project.provide('browserWsEndpoint', browserServer.wsEndpoint());
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 1)
    console.log(`e2e: server bundle, database template and Chromium ready in ${seconds.toFixed(1)} s`);
  return () => browserServer.close();
}
