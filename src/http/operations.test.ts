// Operations endpoints (README "Operating it"): liveness, readiness with its reasons, the browsable API
// reference at /docs and the OpenAPI document behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from '../store/schema.js';
import { readiness } from './health.js';
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import Schema from 'typebox/schema';
import { Compile } from 'typebox/compile';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { eventBody, type OutboxEvent } from '../webhooks/payload.js';
import { RefundEvent, VoidEvent, WEBHOOK_EVENTS } from './openapi-webhooks.js';

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

  test("readiness of a store that refuses: the reason names no host, address or role (the driver's text goes to the log; found by a review)", async () => {
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ host: 'db-primary.corp.invalid', port: 5432, connectionTimeoutMillis: 1000 }) }) });
    const logged: unknown[] = [];
    try {
      const r = await readiness({ db, jobQueue: { running: true } as never }, (err) => logged.push(err));
      assert.equal(r.ready, false);
      assert.match(String(r.checks.store.reason), /^the store refused the probe( \([A-Z0-9_]+\))?; the service log has the detail$/);
      assert.ok(!JSON.stringify(r).includes('corp.invalid'), JSON.stringify(r));
      assert.equal(logged.length, 1, 'the detail is logged');
    } finally {
      await db.destroy();
    }
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

  // Issue 11 "Docs page": every endpoint, chain call, void call and webhook payload with its status codes and
  // a realistic example (decision 0028; the examples: src/http/openapi-examples.ts, made by scripts/openapi-examples.ts).
  type Media = { schema: Record<string, unknown>; examples?: Record<string, { summary?: string; value: unknown }> };
  type Operation = { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };
  const operationsOf = (doc: { paths: Record<string, Record<string, Operation>> }) =>
    Object.entries(doc.paths).flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as const));

  /** Each example of a media object against the media object's own schema; the failures as text. */
  function invalidExamples(where: string, media: Media): string[] {
    const check = Schema.Compile(media.schema as Schema.XSchema);
    return Object.entries(media.examples ?? {})
      .filter(([, e]) => !check.Check(e.value))
      .map(([key, e]) => `${where} example "${key}": ${JSON.stringify(check.Errors(e.value)[1].slice(0, 2))}`);
  }

  test('every operation has a realistic example of its request and of its 200 answer, and every example fits its schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ops = operationsOf(doc);
    assert.ok(ops.length >= 18, ops.map(([k]) => k).join(' '));
    const missing: string[] = [];
    const invalid: string[] = [];
    let checked = 0;
    for (const [name, op] of ops) {
      const request = op.requestBody?.content['application/json'];
      if (request && Object.keys(request.examples ?? {}).length === 0) missing.push(`${name} request`);
      const ok = op.responses['200']?.content?.['application/json'];
      if (!ok || Object.keys(ok.examples ?? {}).length === 0) missing.push(`${name} 200`);
      if (request) invalid.push(...invalidExamples(`${name} request`, request));
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        invalid.push(...invalidExamples(`${name} ${status}`, media));
        checked += Object.keys(media.examples ?? {}).length;
      }
    }
    assert.deepEqual(missing, [], 'operations without examples (run: npx tsx scripts/openapi-examples.ts)');
    assert.deepEqual(invalid, [], 'examples that do not fit their schema (run: npx tsx scripts/openapi-examples.ts)');
    assert.ok(checked > 100, `${checked} answer examples`);
  });

  test('every client endpoint shows its transport failures (400, 401, 413, 415, 500) with an example, and its business failures with theirs', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [name, op] of operationsOf(doc).filter(([k]) => k.startsWith('POST ') && !k.includes('/sandbox/'))) {
      for (const status of ['400', '401', '413', '415', '500']) {
        const examples = op.responses[status]?.content?.['application/json']?.examples ?? {};
        assert.ok(Object.keys(examples).length > 0, `${name} ${status}`);
      }
      const ok = Object.values(op.responses['200']!.content!['application/json']!.examples!).map((e) => (e.value as { status: number }).status);
      assert.ok(ok.includes(0), `${name}: an example of success`);
      // spec 6: a business failure is HTTP 200 with a non-zero status; updateWebhookURL.do has none to show
      if (name !== 'POST /updateWebhookURL.do') assert.ok(ok.some((s) => s !== 0), `${name}: an example of a business failure`);
    }
  });

  test('the endpoints behind a rate pool (spec 8) show their 429 with its Retry-After and examples; every endpoint with client credentials its 429 auth; /sandbox none', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const pooled = ['POST /extractPnr.do', 'POST /pnr/claim.do', 'POST /search.do', 'POST /verify.do', 'POST /getOffers.do', 'POST /seatAvailability.do', 'POST /getLuggage.do'];
    const with429 = operationsOf(doc).filter(([, op]) => op.responses['429']).map(([name]) => name);
    const withCredentials = operationsOf(doc).filter(([name, op]) => op.responses['401'] && !name.includes(' /sandbox/')).map(([name]) => name);
    assert.ok(withCredentials.includes('POST /refund.do') && withCredentials.includes('POST /order.do'), withCredentials.join(' '));
    assert.deepEqual(with429.sort(), withCredentials.sort(), 'a review: the credential check\'s 429 (limitType auth) was shown for the pooled endpoints only');
    const refusal = operationsOf(doc).find(([name]) => name === 'POST /refund.do')![1].responses['429']!.content!['application/json']!;
    assert.ok(JSON.stringify(refusal.schema).includes('"auth"'), 'limitType auth');
    for (const [name, op] of operationsOf(doc).filter(([k]) => withCredentials.includes(k))) {
      assert.ok(op.responses['503'], `${name}: the shutdown's 503`);
    }
    for (const [name, op] of operationsOf(doc).filter(([k]) => pooled.includes(k))) {
      const media = op.responses['429']!.content!['application/json']!;
      assert.deepEqual(invalidExamples(`${name} 429`, media), []);
      assert.ok(Object.values(media.examples ?? {}).every((e) => (e.value as { status: number }).status === 429));
    }
  });

  test('webhooks: every event type the store writes is in the document, with its headers, payload schema and examples', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    // The event types are written by the outbox triggers of the migrations (decision 0022).
    const migrations = path.join(import.meta.dirname, '..', 'store', 'migrations');
    const written = new Set<string>();
    for (const f of fs.readdirSync(migrations)) {
      for (const m of fs.readFileSync(path.join(migrations, f), 'utf8').matchAll(/select [^;]*?'(order\.[a-z_]+)'/g)) written.add(m[1]!);
    }
    // order.ticketed is written by the booking chain's payment, in its transaction (src/booking/ticketed-event.ts)
    for (const m of fs.readFileSync(path.join(import.meta.dirname, '..', 'booking', 'ticketed-event.ts'), 'utf8').matchAll(/type: '(order\.[a-z_]+)'/g)) written.add(m[1]!);
    assert.ok(written.has('order.refund') && written.has('order.void') && written.has('order.ticketed'), [...written].join(' '));
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...written].sort());
    assert.deepEqual(Object.keys(WEBHOOK_EVENTS).sort(), [...written].sort());
    for (const [type, item] of Object.entries(doc.webhooks as Record<string, { post: Operation & { parameters: Array<{ name: string }> } }>)) {
      assert.deepEqual(item.post.parameters.map((p) => p.name), ['x-service-webhook-id', 'x-service-webhook-timestamp', 'x-service-webhook-signature']);
      const media = item.post.requestBody!.content['application/json']!;
      const values = Object.values(media.examples ?? {}).map((e) => e.value as { type: string });
      // order.ticketed is one event per order; the others a submission and a later change
      assert.ok(values.length >= (type === 'order.ticketed' ? 1 : 2), `${type}: a submission and a later change`);
      assert.ok(values.every((v) => v.type === type));
      assert.deepEqual(invalidExamples(`webhook ${type}`, media), []);
      assert.ok(item.post.responses['2XX']);
    }
  });

  test('the payload schemas of the document are what src/webhooks/payload.ts sends', () => {
    const row = (type: string, from: number | null, to: number, data: Record<string, unknown>): OutboxEvent =>
      ({ id: 42, event_id: '0b8f5a0e-6c1d-4a52-9a57-0f7e1c2d3b4a', client_id: 'client-alpha', type, subject: '2611240000345', order_no: '2611240000012', from_status: from, to_status: to, cancel_reason: null, data, occurred_at: new Date('2026-11-24T02:51:34.123Z') });
    const refund = JSON.parse(eventBody(row('order.refund', 3, 2, { reason: '1', refundMethod: 'CashBackToOriginalPayment', quoteType: 'AccurateQuote', currency: 'EUR', estimatedRefundMinor: 19000, actualRefundMinor: 19000, serviceFeeMinor: 500, serviceFeeCurrency: 'EUR', ticketNos: ['9993000000010'], completedOn: '20261124', cause: 'refunded' })));
    const submitted = JSON.parse(eventBody(row('order.refund', null, 0, { currency: 'EUR', estimatedRefundMinor: 19000, ticketNos: ['9993000000010'] })));
    const voided = JSON.parse(eventBody(row('order.void', 1, 4, { currency: 'EUR', voidAmountMinor: 48000, ticketNos: ['9992500000401'], cause: 'rejected' })));
    const refundCheck = Compile(RefundEvent);
    const voidCheck = Compile(VoidEvent);
    for (const body of [refund, submitted]) assert.equal(refundCheck.Check(body), true, JSON.stringify(refundCheck.Errors(body).slice(0, 2)));
    assert.equal(voidCheck.Check(voided), true, JSON.stringify(voidCheck.Errors(voided).slice(0, 2)));
    assert.equal(refundCheck.Check({ ...refund, data: { ...refund.data, passengerName: 'X' } }), false, 'no field beyond the documented ones');
  });
});
