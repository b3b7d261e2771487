// Operations endpoints (README "Operating it"): liveness, readiness with its reasons, the browsable API
// reference at /docs and the OpenAPI document behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { Validator } from '@seriousme/openapi-schema-validator';
import { makeTestApp, type TestApp } from '../test-support/app.js';

/** Every route of the app as "METHOD /path", read from Fastify's own route tree. */
function registeredRoutes(t: TestApp): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S*) \(([A-Z, ]+)\)$/.exec(line.replace(/\u00a0/g, ' '));
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('').replace(/\/\/+/g, '/');
    for (const method of m[3]!.split(', ')) out.push(`${method} ${path}`);
  }
  return out;
}

describe('operations endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('GET /healthz: the process is alive, no credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ok');
  });

  test('GET /readyz: 200 with each check when the store, its migrations and the job queue are fine', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: 'ready', store: { ok: true }, migrations: { ok: true }, jobQueue: { ok: true } });
  });

  test('GET /readyz: 503 naming a migration the store lacks, and ready again once it is applied', async () => {
    const [row] = (await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name desc limit 1`.execute(t.store.db)).rows;
    await sql`delete from kysely_migration where name = ${row!.name}`.execute(t.store.db);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().status, 'not ready');
      assert.equal(res.json().migrations.ok, false);
      assert.match(res.json().migrations.reason, new RegExp(`not applied: ${row!.name}.*postbook migrate`));
      assert.deepEqual(res.json().store, { ok: true });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${row!.name}, ${row!.timestamp})`.execute(t.store.db);
    }
    const unknown = '9999_from_a_newer_build';
    await sql`insert into kysely_migration (name, timestamp) values (${unknown}, ${new Date().toISOString()})`.execute(t.store.db);
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.match(res.json().migrations.reason, /migrated by a newer build: 9999_from_a_newer_build/);
    } finally {
      await sql`delete from kysely_migration where name = ${unknown}`.execute(t.store.db);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });

  test('GET /readyz: 503 once the job queue has stopped (a process shutting down)', async () => {
    const own = await makeTestApp();
    try {
      await own.workers.stop();
      const res = await own.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().jobQueue.ok, false);
      assert.match(res.json().jobQueue.reason, /job queue is not running/);
      assert.equal((await own.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'still alive');
    } finally {
      await own.close();
    }
  });

  test('GET /docs: Swagger UI served from the npm package (no CDN), reading /openapi.json', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 3, page.body);
    for (const url of assets) {
      assert.match(url, /^\/docs\//, `an asset from elsewhere: ${url}`);
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
    }
    const bundle = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
    assert.ok(bundle.body.length > 100_000);
    const doc = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.deepEqual(doc.json().paths, (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json().paths);
  });

  test('GET /openapi.json is a valid OpenAPI 3.1 document listing every registered API route', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));

    // Operations routes are for probes and people, not callers' code: they stay out of the document.
    const operations = /^(GET|HEAD) \/(|health|healthz|readyz|metrics|openapi\.json|docs(\/.*)?)$/;
    // The operator console (its page and /console/api/*) is for operators' browsers: out of the document too.
    const consoleRoute = /^[A-Z]+ \/console(\/.*|\*)?$/;
    const routes = registeredRoutes(t).filter((r) => !operations.test(r) && !consoleRoute.test(r) && !r.startsWith('HEAD '));
    assert.ok(registeredRoutes(t).some((r) => consoleRoute.test(r)), 'the console routes are registered');
    assert.ok(routes.includes('POST /refund.do') && routes.includes('POST /pnr/claim.do'), routes.join(' '));
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    assert.deepEqual(routes.filter((r) => !documented.includes(r)), [], 'routes missing from /openapi.json');
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [m, op] of Object.entries(ops)) assert.ok(op.responses['200'], `${m} ${p} documents its 200 answer`);
    }
  });
});
