// The server the end-to-end files (and the graceful-shutdown test) start, as one ES module built by
// esbuild. Started under tsx, each product start loads ~180 TypeScript files through tsx's loader: about 18 CPU-s and 90 s of wall time
// on the loaded 2-core CI machine, paid by every e2e file. Built once, a start is plain `node`.
//
// The build is kept under node_modules/.cache/qmlstudio-e2e-server/<key>/, the key a hash of exactly
// what went into it (every project file esbuild read, as read, with tsconfig.json, esbuild's version
// and this file): a start whose inputs hash to the recorded key reuses it, any change rebuilds it (the
// way server/problems/validators-cache.ts keys the browser's validators). Packages stay external, loaded
// from node_modules as under tsx. `make run` is untouched (it runs tsx).

import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import * as esbuild from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SERVER_BUNDLE_DIR = path.join(ROOT, 'node_modules/.cache/qmlstudio-e2e-server');
const ENTRY = 'server/main.ts';
/** Which build is current: its key and the inputs (repository paths) the key was made from. */
const CURRENT = 'current.json';
/** Builds of other keys older than this are removed (a run beside this one may still use a recent one). */
const KEEP_OLD_MS = 24 * 3600_000;

interface Current {
  key: string;
  inputs: string[];
}

/** What a build depends on besides its inputs: the recipe (this file), esbuild and the TypeScript settings. */
function recipe(): Buffer[] {
  return [
    readFileSync(import.meta.filename),
    Buffer.from(esbuild.version),
    readFileSync(path.join(ROOT, 'tsconfig.json')),
    Buffer.from(ROOT), // source paths are written into the bundle (import.meta.url, below)
  ];
}

function keyOf(inputs: Map<string, Buffer>): string {
  const hash = createHash('sha256');
  for (const part of recipe()) hash.update(part).update('\0');
  for (const name of [...inputs.keys()].sort()) hash.update(name).update('\0').update(inputs.get(name)!);
  return hash.digest('hex').slice(0, 32);
}

/** The recorded build when every one of its inputs still reads the same, else null. */
function reusable(): string | null {
  try {
    const current = JSON.parse(readFileSync(path.join(SERVER_BUNDLE_DIR, CURRENT), 'utf8')) as Current;
    const inputs = new Map(current.inputs.map((name) => [name, readFileSync(path.join(ROOT, name))]));
    const bundle = path.join(SERVER_BUNDLE_DIR, current.key, 'main.mjs');
    return keyOf(inputs) === current.key && existsSync(bundle) ? bundle : null;
  } catch {
    return null; // no build yet, or an input is gone: build
  }
}

/**
 * Source files keep their own location: `import.meta.url` / `dirname` / `filename` are replaced by the
 * file's, so paths the server finds from them (dist/, worker/, migrations, schemas) are the same as
 * under tsx. Each file is recorded as read, for the key.
 */
function sourcesAsRead(inputs: Map<string, Buffer>): esbuild.Plugin {
  return {
    name: 'sources-as-read',
    setup(build) {
      build.onLoad({ filter: /\.(ts|tsx|mts|js|mjs|json)$/ }, (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const bytes = readFileSync(args.path);
        inputs.set(path.relative(ROOT, args.path), bytes);
        const extension = path.extname(args.path).slice(1);
        const loader: esbuild.Loader =
          extension === 'mts' ? 'ts' : extension === 'mjs' ? 'js' : (extension as esbuild.Loader);
        let contents = bytes.toString('utf8');
        if (loader !== 'json' && contents.includes('import.meta')) {
          contents = contents
            .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
            .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
            .replaceAll('import.meta.filename', JSON.stringify(args.path));
        }
        return { contents, loader };
      });
    },
  };
}

/**
 * A package's file named without its extension ('ajv/dist/2020'): tsx finds it, Node's ES module loader
 * does not (a package without an "exports" map gets no extension search). The bundle names the file.
 */
function deepImportsNamed(): esbuild.Plugin {
  return {
    name: 'deep-imports-named',
    setup(build) {
      build.onResolve({ filter: /^(@[^/]+\/)?[^./@:][^/:]*\/.+/ }, (args) => {
        const parts = args.path.split('/');
        const name = parts.slice(0, args.path.startsWith('@') ? 2 : 1).join('/');
        const require = createRequire(path.join(args.resolveDir, 'importer.js'));
        let file: string;
        try {
          file = require.resolve(args.path);
        } catch {
          return { path: args.path, external: true };
        }
        const packageDir = file.slice(
          0,
          file.lastIndexOf(`${path.sep}node_modules${path.sep}${name}${path.sep}`),
        );
        const manifest = path.join(packageDir, 'node_modules', name, 'package.json');
        const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown };
        if (exports) return { path: args.path, external: true };
        return { path: `${name}/${path.relative(path.dirname(manifest), file)}`, external: true };
      });
    },
  };
}

async function build(): Promise<string> {
  mkdirSync(SERVER_BUNDLE_DIR, { recursive: true });
  const staging = mkdtempSync(path.join(SERVER_BUNDLE_DIR, 'building-'));
  const inputs = new Map<string, Buffer>();
  try {
    await esbuild.build({
      entryPoints: [path.join(ROOT, ENTRY)],
      outfile: path.join(staging, 'main.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      // Names as written: errors and logs name the same classes and functions as under tsx.
      keepNames: true,
      sourcemap: 'linked',
      logLevel: 'error',
      plugins: [deepImportsNamed(), sourcesAsRead(inputs)],
    });
    const key = keyOf(inputs);
    const target = path.join(SERVER_BUNDLE_DIR, key);
    try {
      renameSync(staging, target);
    } catch {
      // built beside another run that got there first: the same inputs, the same bundle
      rmSync(staging, { recursive: true, force: true });
    }
    const current: Current = { key, inputs: [...inputs.keys()].sort() };
    const partial = path.join(SERVER_BUNDLE_DIR, `${CURRENT}.${process.pid}.partial`);
    writeFileSync(partial, `${JSON.stringify(current, null, 1)}\n`);
    renameSync(partial, path.join(SERVER_BUNDLE_DIR, CURRENT));
    removeOldBuilds(key);
    return path.join(target, 'main.mjs');
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function removeOldBuilds(keep: string) {
  for (const entry of readdirSync(SERVER_BUNDLE_DIR, { withFileTypes: true })) {
    // The harness's database templates live here too; they have keys of their own (harness.ts).
    if (!entry.isDirectory() || entry.name === keep || entry.name.startsWith('database-')) continue;
    const dir = path.join(SERVER_BUNDLE_DIR, entry.name);
    try {
      if (Date.now() - statSync(dir).mtimeMs > KEEP_OLD_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // removed by another run meanwhile
    }
  }
}

/** The bundled server for the sources as they are now: the recorded build when current, else a new one. */
export async function serverBundle(): Promise<string> {
  return reusable() ?? (await build());
}
