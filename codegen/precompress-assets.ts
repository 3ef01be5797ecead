import path from 'node:path';
import type { Logger, Plugin } from 'vite';
import { precompressDirectory } from '../server/platform/precompressed-files';

/** Vite plugin: precompresses the build output once it is written. */
export function precompressAssets(): Plugin {
  let outDir = 'dist';
  let logger: Logger | null = null;
  return {
    name: 'qml-precompress-assets',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      logger = config.logger;
    },
    async closeBundle() {
      const { files, rawBytes, brBytes } = await precompressDirectory(outDir);
      logger?.info(`precompressed ${files} files: ${rawBytes} bytes -> ${brBytes} bytes brotli`);
    },
  };
}
