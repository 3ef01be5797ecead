// Temporary files of uploads and URL fetches (`.<name>.part`) are renamed into place or removed when
// the work ends; only a crash of the server in the middle leaves one. Each save sweeps its directory
// of such leftovers older than an hour (far longer than an upload or fetch under its limits takes).

import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

export const STALE_PARTIAL_MS = 60 * 60 * 1000;

/** Removes `.part` files in `dir` last written more than `maxAgeMs` ago; quiet about races. */
export async function removeStalePartials(dir: string, maxAgeMs = STALE_PARTIAL_MS, now = Date.now()) {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith('.') || !name.endsWith('.part')) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > maxAgeMs) await rm(file, { force: true });
  }
}
