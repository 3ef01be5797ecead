// Brotli and gzip copies of the built web app's files, written once at build time (the Vite
// plugin in codegen/) and sent as they are by web-app-files.ts.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text formats worth compressing; images and fonts are already compressed. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/;
/** Below this a compressed copy saves less than its extra headers cost. */
const MIN_BYTES = 1024;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/**
 * Writes `<file>.br` (brotli, best quality) and `<file>.gz` (gzip level 9) beside every compressible
 * file of `dir`, so the server sends them as they are instead of compressing per request. A copy
 * that is not smaller than the original is not written (the server then sends the original).
 */
export async function precompressDirectory(
  dir: string,
): Promise<{ files: number; rawBytes: number; brBytes: number }> {
  let files = 0;
  let rawBytes = 0;
  let brBytes = 0;
  for (const file of await filesUnder(dir)) {
    if (!COMPRESSIBLE.test(file) || (await stat(file)).size < MIN_BYTES) continue;
    const raw = await readFile(file);
    const [br, gz] = await Promise.all([
      brotli(raw, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      }),
      gzipAsync(raw, { level: 9 }),
    ]);
    if (br.length < raw.length) await writeFile(`${file}.br`, br);
    if (gz.length < raw.length) await writeFile(`${file}.gz`, gz);
    files++;
    rawBytes += raw.length;
    brBytes += Math.min(br.length, raw.length);
  }
  return { files, rawBytes, brBytes };
}
