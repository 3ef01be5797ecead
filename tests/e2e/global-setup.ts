// Once per e2e run, before any file: the server bundle for the sources as they are and the migrated
// database template the products copy (tests/e2e/harness.ts). Both are kept between runs under
// node_modules/.cache/qmlstudio-e2e-server/ and only made again when what they are made from changed,
// so `make test` on a clean clone makes them here, and a later run finds them.

import { makeDatabaseTemplate } from './harness';
import { serverBundle } from './server-bundle';

export default async function setup(): Promise<void> {
  const started = Date.now();
  await serverBundle();
  await makeDatabaseTemplate();
  const seconds = (Date.now() - started) / 1000;
  if (seconds > 1) console.log(`e2e: server bundle and database template ready in ${seconds.toFixed(1)} s`);
}
