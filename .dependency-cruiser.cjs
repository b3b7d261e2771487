// The layering of src/, checked by `npm run lint:deps` (part of `npm test`): no import cycle between modules
// or between folders, and the few files at the top of src/ keep their place (docs/architecture.md "Layers").
// A folder cycle is reported by folder; a new one fails the run.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment: 'Two modules import each other (directly or through others): move the shared piece below both.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Two folders of src/ import each other: move the shared piece below both.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'root-basics-import-no-folder',
      severity: 'error',
      comment: 'clock, config, log, errors, wire, bounded-map and deep-freeze sit below every folder of src/: they import none of them.',
      from: { path: '^src/(clock|config|log|errors|wire|bounded-map|deep-freeze)\\.ts$' },
      to: { path: '^src/[^/]+/' },
    },
    {
      name: 'only-the-edge-imports-http',
      severity: 'error',
      comment: 'Domain code throws ApiError (src/errors.ts) and uses src/wire.ts; only the app and the route table reach src/http/.',
      from: { path: '^src/', pathNot: '^src/(http/|test-support/|app\\.ts$|deps\\.ts$)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'nobody-imports-the-assembly',
      severity: 'error',
      comment: 'app.ts, service.ts, server.ts and cli.ts are the top: only the process entries and the test harness import them.',
      from: { path: '^src/', pathNot: '^src/(server|cli|service)\\.ts$|^src/test-support/app\\.ts$' },
      to: { path: '^src/(app|service|server|cli)\\.ts$' },
    },
    {
      name: 'deps-is-for-routes',
      severity: 'error',
      comment: 'AppDeps (src/deps.ts) is what a route sees: commands take their own narrower dependencies.',
      from: { path: '^src/', pathNot: '^src/(http/|app\\.ts$)' },
      to: { path: '^src/deps\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Test files are leaves (nothing imports them); counted, they would join every folder to test-support/.
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
