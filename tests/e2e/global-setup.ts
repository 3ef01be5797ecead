// Once per e2e run, before any file: the server bundle for the sources as they are and the migrated
// database template the products copy (tests/e2e/harness.ts). Both are kept between runs under
// node_modules/.cache/qmlstudio-e2e-server/ and only made again when what they are made from changed,
// so `make test` on a clean clone makes them here, and a later run finds them.
//
// Also one Chromium for the whole run (a browser server the files connect to: launchBrowser in
// harness.ts), started beside the bundle: each file opens its own contexts in it instead of starting
// and stopping a Chromium of its own (about 1 CPU-s and 2-3 s of a loaded machine per file).
//
// And one preloaded worker (python -m qmlstudio_worker serve) the products' jobs fork from
// (WORKER_SERVE_SOCKET), each child with its product's settings: a product would otherwise import
// torch, qiskit and the rest once more at its first job (about 4.5 CPU-s, a dozen products run jobs).
//
// And the directory where the workers record the product each shares among its files (harness.ts
// sharedProduct): the teardown stops any still running.

import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../server/config';
import { WarmWorkerPool } from '../../server/jobs/warm-worker-pool';
import { launchBrowserServer, makeDatabaseTemplate, stopSharedProducts } from './harness';
import { serverBundle } from '../../server/test-support/server-bundle';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's WebSocket address (BrowserServer.wsEndpoint), or '' to launch one per file. */
    browserWsEndpoint: string;
    /** The shared preloaded worker's socket (WORKER_SERVE_SOCKET of every product), '' when it could not start. */
    workerServeSocket: string;
    /** Where the workers record their shared products (harness.ts sharedProduct), stopped at the teardown. */
    sharedProductsDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const worker = new WarmWorkerPool({
    python: loadConfig({}).workerPython,
    log: { info: () => undefined, warn: console.warn, error: console.error },
    startNow: true,
  });
  const [browserServer, workerReady] = await Promise.all([
    launchBrowserServer(),
    worker.warmUp(),
    serverBundle().then(() => makeDatabaseTemplate()),
  ]);
  project.provide('browserWsEndpoint', browserServer.wsEndpoint());
  project.provide('workerServeSocket', workerReady ? worker.socket : '');
  const sharedProducts = mkdtempSync(path.join(os.tmpdir(), 'qml-e2e-shared-'));
  project.provide('sharedProductsDir', sharedProducts);
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 1)
    console.log(`e2e: server bundle, database template and Chromium ready in ${seconds.toFixed(1)} s`);
  return async () => {
    await stopSharedProducts(sharedProducts);
    await Promise.all([browserServer.close(), worker.close()]);
  };
}
