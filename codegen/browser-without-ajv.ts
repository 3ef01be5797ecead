import path from 'node:path';
import type { Plugin } from 'vite';

const ENGINE = path.resolve(import.meta.dirname, '../src/engine');
const COMPILER = path.join(ENGINE, 'ajv.ts');
const STAND_IN = path.join(ENGINE, 'ajv-browser.ts');
/** ajv's compiler and the compile-time plugins; its run-time helpers (ajv/dist/runtime) are allowed. */
const COMPILER_MODULE = /\/node_modules\/(ajv\/dist\/(core|compile\/index)\.js|ajv-errors\/)/;

/**
 * Vite plugin: the browser build takes src/engine/ajv-browser.ts for the engine's ajv.ts (the browser
 * never compiles a schema, see there), and the build fails if ajv's compiler still ends up in a chunk
 * (through another import), naming the chunk.
 */
export function browserWithoutAjv(): Plugin {
  return {
    name: 'qml-browser-without-ajv',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!importer || !source.endsWith('/ajv') || !importer.startsWith(ENGINE)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === COMPILER ? STAND_IN : null;
    },
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const found = Object.entries(chunk.modules).find(
          ([id, info]) => info.renderedLength > 0 && COMPILER_MODULE.test(id),
        );
        if (found) this.error(`ajv's compiler is in the browser chunk ${chunk.fileName} (${found[0]})`);
      }
    },
  };
}
