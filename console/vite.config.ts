// Builds the operator console into console/dist, served by the service under /console (src/console/plugin.ts).
// Run by `npm run build`; every asset comes from npm, nothing from a CDN. The sources are written against
// React's API (and typed with @types/react); the bundle runs Preact through preact/compat (decision 0029,
// part 4): every import of React — the console's own, recharts', react-redux's — is aliased below.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';
import { isoExponentsOnly } from './iso-exponents-plugin.ts';

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

/**
 * React's entry points → Preact's. Exact matches only (`$`): `react-dom/client` must not become
 * `preact/compat/client` by prefix. `react-is` too: recharts asks it only `isFragment`, which preact/compat
 * answers for Preact's own vnodes (react-is 19 would say no to every one of them: other $$typeof, other
 * Fragment).
 */
const toPreact = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-is$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-runtime' },
];

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [isoExponentsOnly(), precompress()],
  // JSX is compiled by Vite's own transform (oxc) to Preact's runtime; no framework plugin is needed for a
  // build (the console is never served by Vite's dev server, where a plugin's hot reload would matter).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: toPreact, dedupe: ['preact'] },
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or styles: the pages' Content-Security-Policy allows only the service's own files.
    assetsInlineLimit: 0,
  },
});
