import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The single-page app; the API server (server/) serves the built files from dist/.
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': 'http://localhost:8080' } },
});
