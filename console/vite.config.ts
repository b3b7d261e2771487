// Builds the operator console (React) into console/dist, served by the service under /console
// (src/console/plugin.ts). Run by `npm run build`; every asset comes from npm, nothing from a CDN.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or styles: the pages' Content-Security-Policy allows only the service's own files.
    assetsInlineLimit: 0,
  },
});
