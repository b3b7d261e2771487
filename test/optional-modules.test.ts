// Optional dependencies are loaded when they are used, not by every process start: ioredis only with REDIS_URL
// (src/ratelimit/redis.ts), undici by the first webhook POST (src/webhooks/egress.ts). Together they were ~155 of the
// ~720 CommonJS modules the service's import loaded, ~0.2–0.5 s of CPU at every start of the server, of each CLI
// command, of the refund workers and of every test process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './support/processes.js';

/** The npm packages of the CommonJS modules a fresh `node` has loaded once it imported the service's module. */
function packagesLoadedByImport(): Set<string> {
  const build = process.env.POSTBOOK_TEST_BUILD?.trim();
  const [loader, entry] = build ? [[], path.join(build, 'service.js')] : [['--import', 'tsx'], path.join(ROOT, 'src/service.ts')];
  const script = `
    import { createRequire } from 'node:module';
    await import(${JSON.stringify(entry)});
    const names = Object.keys(createRequire(process.cwd() + '/').cache).map((f) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(f)?.[1]).filter(Boolean);
    process.stdout.write(JSON.stringify([...new Set(names)]));`;
  const out = execFileSync(process.execPath, [...loader, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return new Set(JSON.parse(out) as string[]);
}

test("the service's import loads neither ioredis nor undici (REDIS_URL unset, no webhook sent)", () => {
  const loaded = packagesLoadedByImport();
  // the check sees CommonJS packages the service needs at once (so that its absences mean something)
  for (const name of ['fastify', 'pg', 'pino']) assert.ok(loaded.has(name), `${name} among ${[...loaded].join(', ')}`);
  for (const name of ['ioredis', 'undici']) assert.ok(!loaded.has(name), `${name} is loaded by the service's import`);
});
