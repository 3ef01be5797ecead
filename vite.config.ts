import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { browserWithoutAjv } from './codegen/browser-without-ajv';
import { precompressAssets } from './codegen/precompress-assets';

// The single-page app; the API server (server/) serves the built files from dist/, with the
// brotli and gzip copies written at build time. The browser build carries no ajv compiler (it validates with
// the validators the server writes).
export default defineConfig({
  plugins: [react(), browserWithoutAjv(), precompressAssets()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
