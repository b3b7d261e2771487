// Builds the operator console (React) into console/dist, served by the service under /console
// (src/console/plugin.ts). Run by `npm run build`; every asset comes from npm, nothing from a CDN.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every script and style: the service sends them as they
 * are (@fastify/static preCompressed) instead of compressing the same bytes on every request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'postbook-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const file = path.join(outDir, name);
        const bytes = fs.readFileSync(file);
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react(), precompress()],
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or styles: the pages' Content-Security-Policy allows only the service's own files.
    assetsInlineLimit: 0,
  },
});
