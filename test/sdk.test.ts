// The SDK (packages/client, decision 0027) against the in-process service over real HTTP on loopback: its
// wire types are what the service declares (drift check), every endpoint has a method, HTTP 429 is waited out
// and retried (spec 8), business failures are typed errors (spec 7), a refund is followed to its final status
// (spec 3.1) while the sandbox clock is moved, and a real webhook delivery verifies (docs/webhooks.md).
import util from 'node:util';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTestApp, type TestApp } from '../src/test-support/app.js';
import { TEST_ADMIN_TOKEN, TEST_CLIENTS } from '../src/test-support/world.js';
import { voidWorld, voidWorldClock } from '../src/test-support/void-world.js';
import { bookingWorld } from '../src/test-support/booking-world.js';
import { verifySeg } from '../src/test-support/booking.js';
import { WebhookReceiver } from '../src/test-support/webhook-receiver.js';
import { createRatePools } from '../src/ratelimit/pools.js';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import type { VoidEventData } from '../packages/client/src/index.js';
import { GENERATED_FILE, renderWireTypes, serviceDocument } from '../scripts/sdk-types.js';
import {
  ENDPOINTS,
  METHOD_ENDPOINTS,
  PostbookClient,
  PostbookClientError,
  PostbookError,
  RateLimitedError,
  TransportError,
  WaitTimeoutError,
  WebhookVerificationError,
  verifyWebhook,
  type ClientOptions,
  type FetchLike,
  type RefundEventData,
} from '../packages/client/src/index.js';
import { refundSegment } from '../src/test-support/refund-world.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const alpha = { clientId: TEST_CLIENTS.alpha.id, clientSecret: TEST_CLIENTS.alpha.secret };

/** A fetch that records each answer's HTTP status, over the real one. */
function recordingFetch(): { fetch: FetchLike; statuses: number[]; urls: string[] } {
  const statuses: number[] = [];
  const urls: string[] = [];
  return {
    statuses,
    urls,
    fetch: async (url, init) => {
      urls.push(`${init.method} ${url}`);
      const res = await fetch(url, init);
      statuses.push(res.status);
      return res;
    },
  };
}

describe('SDK types and methods', () => {
  test('drift check: the committed wire types are exactly what the running service declares', { timeout: 60_000 }, async () => {
    const fresh = await renderWireTypes(await serviceDocument());
    const committed = fs.readFileSync(GENERATED_FILE, 'utf8');
    assert.ok(fresh === committed, 'packages/client/src/generated/wire.ts is stale: run npm run sdk:generate and commit it');
  });

  test('every endpoint of the service has exactly one method, and each method calls its endpoint', async () => {
    const keys = ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort();
    assert.deepEqual(Object.values(METHOD_ENDPOINTS).sort(), keys);
    assert.ok(keys.includes('POST /refundQuotation.do') && keys.includes('POST /pnr/claim.do') && keys.includes('POST /seatAvailability.do'));
    const seen: string[] = [];
    const sent: unknown[] = [];
    const fake: FetchLike = async (url, init) => {
      seen.push(`${init.method} ${new URL(url).pathname}`);
      sent.push(typeof init.body === 'string' ? JSON.parse(init.body) : undefined);
      return new Response(JSON.stringify({ status: 0, msg: null }), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const client = new PostbookClient({ baseUrl: 'http://postbook.invalid/api/', ...alpha, adminToken: 'admin', fetch: fake });
    for (const [name, key] of Object.entries(METHOD_ENDPOINTS)) {
      const [group, method] = name.split('.') as [string, string];
      const fn = (client as unknown as Record<string, Record<string, (...a: unknown[]) => Promise<unknown>>>)[group]![method]!;
      await (key.startsWith('GET') ? fn() : fn({}));
      assert.equal(seen.at(-1), key.replace(' /', ' /api/'), name);
    }
    // seats.forSession: the seatAvailability.do request made of a return session's routing
    const seg = (segmentIndex: number, flightNumber: string, depAirport: string, arrAirport: string, depTime: string) => ({ segmentIndex, carrier: 'XS', flightNumber, depAirport, arrAirport, depTime });
    await client.seats.forSession({ sessionId: 's-1', routing: { fromSegments: [seg(1, 'XS101', 'HND', 'SGN', '203001011030')], retSegments: [seg(2, 'XS102', 'SGN', 'HND', '203001082355')] } });
    assert.deepEqual(sent.at(-1), {
      sessionId: 's-1',
      carrier: 'XS',
      outboundSegments: [{ segmentIndex: 1, flightNumber: 'XS101', depAirport: 'HND', arrAirport: 'SGN', depTime: '203001011030' }],
      inboundSegments: [{ segmentIndex: 2, flightNumber: 'XS102', depAirport: 'SGN', arrAirport: 'HND', depTime: '203001082355' }],
    });
    await client.seats.forSession({ sessionId: 's-2', routing: { fromSegments: [seg(1, 'XS101', 'HND', 'SGN', '203001011030')], retSegments: [] } }, { carrier: 'YY' });
    assert.equal((sent.at(-1) as { carrier: string; inboundSegments: unknown }).carrier, 'YY');
    assert.equal((sent.at(-1) as { inboundSegments: unknown }).inboundSegments, null);
  });

  test('the package builds on its own: ESM with declarations, no node: import, no import leaving the package', { timeout: 120_000 }, async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-client-build-'));
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'packages/client/tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
      const files = fs.readdirSync(out, { recursive: true }).map(String);
      assert.ok(files.includes('index.js') && files.includes('index.d.ts'));
      for (const f of files.filter((x) => x.endsWith('.js') || x.endsWith('.d.ts'))) {
        const text = fs.readFileSync(path.join(out, f), 'utf8');
        for (const [, spec] of text.matchAll(/from '([^']+)'/g)) assert.ok(spec!.startsWith('./') || spec!.startsWith('../'), `${f} imports ${spec}`);
        assert.ok(!/\bnode:/.test(text), `${f} mentions node:`);
      }
      const built = (await import(pathToFileURL(path.join(out, 'index.js')).href)) as Record<string, unknown>;
      for (const name of ['PostbookClient', 'PostbookError', 'RateLimitedError', 'verifyWebhook', 'ENDPOINTS']) assert.ok(built[name], name);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  test('transport failures: a non-JSON error page, no answer in time, a refused connection, an HTTP-date Retry-After past the allowed wait', async () => {
    const answer = (status: number, body: string, headers: Record<string, string> = {}): FetchLike => async () => new Response(body, { status, headers });
    const base = { baseUrl: 'http://postbook.invalid', ...alpha };
    const proxy = new PostbookClient({ ...base, fetch: answer(502, '<html>bad gateway</html>', { 'x-request-id': 'r-1' }) });
    await assert.rejects(proxy.refunds.query({ refundCode: '1' }), (e: unknown) => e instanceof PostbookError && e.httpStatus === 502 && e.status === null && e.requestId === 'r-1' && /bad gateway/.test(e.msg));
    const stalled: FetchLike = (_url, init) => new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    await assert.rejects(new PostbookClient({ ...base, fetch: stalled, timeoutMs: 50 }).refunds.query({}), (e: unknown) => e instanceof TransportError && /within 50 ms/.test(e.message));
    // extractPnr.do waits for the airline up to its own `timeout`: the attempt gets that and 5 s more (a review:
    // the 30 s default cut a 60 s extraction off); a time-out the caller sets for the call still wins
    const extract = { airlinePnr: 'ABC123', carrier: 'XS', passengers: [], contact: { email: 'a@example.com' } } as unknown as Parameters<PostbookClient['pnr']['extract']>[0];
    await assert.rejects(new PostbookClient({ ...base, fetch: stalled, timeoutMs: 50 }).pnr.extract({ ...extract, timeout: 100 }), (e: unknown) => e instanceof TransportError && /within 5100 ms/.test(e.message));
    await assert.rejects(new PostbookClient({ ...base, fetch: stalled, timeoutMs: 50 }).pnr.extract({ ...extract, timeout: 100 }, { timeoutMs: 60 }), (e: unknown) => e instanceof TransportError && /within 60 ms/.test(e.message));
    const controller = new AbortController();
    const pending = new PostbookClient({ ...base, fetch: stalled }).refunds.query({}, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await assert.rejects(pending, /caller gave up/);
    await assert.rejects(new PostbookClient({ baseUrl: 'http://127.0.0.1:1', ...alpha }).refunds.query({}), (e: unknown) => e instanceof TransportError);
    // 429 with an HTTP-date Retry-After beyond the allowed wait: refused at once, not waited for
    const later = new Date(Date.now() + 120_000).toUTCString();
    const limited = new PostbookClient({ ...base, fetch: answer(429, JSON.stringify({ status: 429, msg: 'slow down' }), { 'retry-after': later }) });
    await assert.rejects(limited.seats.availability({ carrier: 'XS', outboundSegments: [] }), (e: unknown) => e instanceof RateLimitedError && e.attempts === 1 && e.retryAfterMs > 60_000);
    // a proxy's decimal seconds are seconds, not a date in 2001 (found by a review: read as 0 ms)
    const decimal = new PostbookClient({ ...base, rateLimit: { retries: 0, maxWaitMs: 60_000 }, fetch: answer(429, JSON.stringify({ status: 429, msg: 'slow down' }), { 'retry-after': '1.5' }) });
    await assert.rejects(decimal.seats.availability({ carrier: 'XS', outboundSegments: [] }), (e: unknown) => e instanceof RateLimitedError && e.retryAfterMs === 1500);
    assert.throws(() => new PostbookClient({ ...base, headerPrefix: 'bad prefix' }), /headerPrefix/);
    // every failure a rejected promise, none thrown at the call site (a review: `.catch()` missed them)
    await assert.rejects(proxy.call('POST /refundQuotation.do', { refundRequestList: [] }, { idempotencyKey: 'k' }), /takes no Idempotency-Key/);
    await assert.rejects(proxy.seats.forSession({ sessionId: 's-0', routing: { fromSegments: [], retSegments: [] } }), (e: unknown) => e instanceof PostbookClientError && /no outbound segment/.test(e.message));
    await assert.rejects(proxy.sandbox.clock(), /adminToken/);
  });

  test("the service's own 503 while a process shuts down is sent again after its Retry-After; a proxy's 503 is not", async () => {
    const base = { baseUrl: 'http://postbook.invalid', ...alpha };
    const calls: number[] = [];
    const sequence = (answers: Array<() => Response>): FetchLike => async () => answers[Math.min(calls.push(1) - 1, answers.length - 1)]!();
    const shedding = () => new Response(JSON.stringify({ status: 503, msg: 'the service is shutting down and did nothing with this request; send it again' }), { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '0' } });
    const ok = () => new Response(JSON.stringify({ status: 0, msg: 'success', refundOrders: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
    const answered = await new PostbookClient({ ...base, fetch: sequence([shedding, shedding, ok]) }).refunds.query({});
    assert.equal(answered.status, 0);
    assert.equal(calls.length, 3, 'two 503s sent again, on the two retries');
    calls.length = 0;
    await assert.rejects(new PostbookClient({ ...base, fetch: sequence([shedding]) }).refunds.query({}), (e: unknown) => e instanceof PostbookError && e.httpStatus === 503 && e.status === 503);
    assert.equal(calls.length, 3, 'past the retries: the 503 reaches the caller');
    calls.length = 0;
    const proxy = () => new Response('<html>no healthy upstream</html>', { status: 503, headers: { 'retry-after': '0' } });
    await assert.rejects(new PostbookClient({ ...base, fetch: sequence([proxy, ok]) }).refunds.query({}), (e: unknown) => e instanceof PostbookError && e.httpStatus === 503 && e.status === null);
    assert.equal(calls.length, 1, "a proxy's 503 may have reached the service: not sent again");
  });

  test('waitForFinal waits through a query without an answer, a 5xx and a 429 past the retries; a refusal ends it at once; the timeout names the last failure (found by a review: one failed query ended the wait)', async () => {
    const base = { baseUrl: 'http://postbook.invalid', ...alpha, rateLimit: { retries: 0 } };
    const order = (refundStatus: number) => JSON.stringify({ status: 0, msg: 'success', refundOrders: [{ refundCode: 'R1', refundStatus }] });
    // each query answered by the next step: a thrown error is a failed fetch
    const scripted = (steps: Array<Response | Error>): FetchLike & { calls: number } => {
      const f = Object.assign(async () => {
        const step = steps[Math.min(f.calls++, steps.length - 1)]!;
        if (step instanceof Error) throw step;
        return step.clone();
      }, { calls: 0 });
      return f;
    };
    const json = (status: number, body: string, headers: Record<string, string> = {}) => new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
    const bumpy = scripted([new TypeError('fetch failed'), new Response('<html>down</html>', { status: 503 }), json(429, JSON.stringify({ status: 429, msg: 'slow down' }), { 'retry-after': '0' }), json(200, order(1)), json(502, '{}'), json(200, order(2))]);
    const seen: number[] = [];
    const done = await new PostbookClient({ ...base, fetch: bumpy }).refunds.waitForFinal('R1', { initialDelayMs: 5, maxDelayMs: 10, timeoutMs: 10_000, onStatus: (st) => void seen.push(st) });
    assert.equal(done.refundStatus, 2);
    assert.deepEqual(seen, [1, 2]);
    assert.equal(bumpy.calls, 6);

    const down = scripted([json(502, '{}')]);
    // (pauses of MIN_POLL_MS, 250 ms, at the least)
    await assert.rejects(new PostbookClient({ ...base, fetch: down }).refunds.waitForFinal('R1', { initialDelayMs: 5, maxDelayMs: 10, timeoutMs: 900 }), (e: unknown) => e instanceof WaitTimeoutError && e.lastStatus === null && e.cause instanceof PostbookError && e.cause.httpStatus === 502 && /the last query failed/.test(e.message));
    assert.ok(down.calls > 2, String(down.calls));
    // a failure after a status, then the status again: the timeout carries no stale cause
    const recovered = scripted([json(502, '{}'), json(200, order(1))]);
    await assert.rejects(new PostbookClient({ ...base, fetch: recovered }).refunds.waitForFinal('R1', { initialDelayMs: 5, maxDelayMs: 10, timeoutMs: 650 }), (e: unknown) => e instanceof WaitTimeoutError && e.lastStatus === 1 && e.cause === undefined);

    for (const refusal of [json(401, JSON.stringify({ status: 900, msg: 'unauthorized' })), json(200, JSON.stringify({ status: 801, msg: 'no such order' }))]) {
      const once = scripted([refusal]);
      await assert.rejects(new PostbookClient({ ...base, fetch: once }).refunds.waitForFinal('R1', { initialDelayMs: 5, timeoutMs: 10_000 }), (e: unknown) => e instanceof PostbookError && !(e instanceof WaitTimeoutError));
      assert.equal(once.calls, 1);
    }
    // a Retry-After longer than the wait left: no query before it, the timeout names the 429 (found by a review: one more query at the deadline)
    const patient = scripted([json(429, JSON.stringify({ status: 429, msg: 'slow down' }), { 'retry-after': '30' })]);
    await assert.rejects(new PostbookClient({ ...base, rateLimit: { retries: 0, maxWaitMs: 60_000 }, fetch: patient }).refunds.waitForFinal('R1', { initialDelayMs: 5, timeoutMs: 200 }), (e: unknown) => e instanceof WaitTimeoutError && e.cause instanceof RateLimitedError);
    assert.equal(patient.calls, 1);
    const unknown = scripted([json(200, JSON.stringify({ status: 0, msg: 'success', refundOrders: [] }))]);
    await assert.rejects(new PostbookClient({ ...base, fetch: unknown }).refunds.waitForFinal('R1', { timeoutMs: 10_000 }), /answered no refund order/);
    assert.equal(unknown.calls, 1);
    // NaN (an unset variable read as a number) is refused before any query (found by a review: 703 queries in 2 s, no deadline)
    const none = scripted([]);
    for (const bad of [{ timeoutMs: NaN }, { maxDelayMs: NaN }, { initialDelayMs: -1 }, { maxDelayMs: Infinity }, { timeoutMs: -5 }]) {
      await assert.rejects(new PostbookClient({ ...base, fetch: none }).refunds.waitForFinal('R1', bad), (e: unknown) => e instanceof PostbookClientError && /must be a/.test(e.message), JSON.stringify(bad));
    }
    assert.equal(none.calls, 0);
  });

  test('waitForFinal ends at its timeoutMs, also while a query hangs or waits out 429s (found by a review: up to 30 s and 2 × 60 s late)', async () => {
    const base = { baseUrl: 'http://postbook.invalid', ...alpha };
    const hanging: FetchLike = (_url, init) => new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    const limited: FetchLike = async () => new Response(JSON.stringify({ status: 429, msg: 'slow down' }), { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '2' } });
    for (const [name, fetch] of [['hanging', hanging], ['429 with Retry-After 2', limited]] as const) {
      const started = performance.now();
      await assert.rejects(new PostbookClient({ ...base, fetch, timeoutMs: 4_000 }).refunds.waitForFinal('R1', { timeoutMs: 300 }), (e: unknown) => e instanceof WaitTimeoutError, name);
      const took = performance.now() - started;
      assert.ok(took >= 290 && took < 1_000, `${name}: ${took} ms`);
    }
    // timeoutMs past a timer's range (Infinity, 30 days) is no deadline, not one at once (a review: `WaitTimeoutError … within 3 ms`)
    for (const timeoutMs of [Number.POSITIVE_INFINITY, 30 * 86_400_000]) {
      let calls = 0;
      const finalSoon: FetchLike = async () => new Response(JSON.stringify({ status: 0, msg: 'success', refundOrders: [{ refundCode: 'R1', refundStatus: ++calls >= 3 ? 2 : 1 }] }), { status: 200 });
      const done = await new PostbookClient({ ...base, fetch: finalSoon }).refunds.waitForFinal('R1', { timeoutMs, initialDelayMs: 5 });
      assert.equal(done.refundStatus, 2, String(timeoutMs));
    }
    // 0: one look, answered whole (final: the order; not final: the time-out naming its status)
    for (const [status, final] of [[2, true], [1, false]] as const) {
      const once: FetchLike = async () => {
        await new Promise((r) => setTimeout(r, 30));
        return new Response(JSON.stringify({ status: 0, msg: 'success', refundOrders: [{ refundCode: 'R1', refundStatus: status }] }), { status: 200 });
      };
      const looked = new PostbookClient({ ...base, fetch: once }).refunds.waitForFinal('R1', { timeoutMs: 0 });
      if (final) assert.equal((await looked).refundStatus, 2);
      else await assert.rejects(looked, (e: unknown) => e instanceof WaitTimeoutError && e.lastStatus === 1);
    }
    // the caller's own abort is still the caller's reason, not a time-out
    const controller = new AbortController();
    const pending = new PostbookClient({ ...base, fetch: hanging }).refunds.waitForFinal('R1', { timeoutMs: 10_000, signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await assert.rejects(pending, (e: unknown) => !(e instanceof WaitTimeoutError) && /caller gave up/.test(String(e)));
  });

  test("quoteAndSubmit sends its submission again under the same key after an answer that is no verdict (a proxy's 504, a 500); still none, the error carries the key (found by a review: a 504 came out without it)", async () => {
    const quote = { status: 0, msg: 'success', refundOfferId: 'rfo_1', refundTickets: [] };
    const sent: string[] = [];
    const fake = (answers: Array<() => Response>): FetchLike => async (url, init) => {
      if (new URL(url).pathname !== '/refund.do') return new Response(JSON.stringify(quote), { status: 200 });
      sent.push(String((init.headers as Record<string, string>)['idempotency-key']));
      return answers.shift()!();
    };
    const gateway = () => new Response('<html>504 Gateway Time-out</html>', { status: 504, headers: { 'content-type': 'text/html' } });
    const made = () => new Response(JSON.stringify({ status: 0, msg: 'success', refundCode: 'R1' }), { status: 200 });
    const client = (answers: Array<() => Response>) => new PostbookClient({ baseUrl: 'http://postbook.invalid', ...alpha, fetch: fake(answers) });
    const { refund } = await client([gateway, made]).refunds.quoteAndSubmit({ orderNo: '1', refundRequestList: [] });
    assert.equal(refund?.refundCode, 'R1');
    assert.equal(sent.length, 2);
    assert.equal(sent[1], sent[0], 'the same key');
    sent.length = 0;
    const failed = () => new Response(JSON.stringify({ status: 9999, msg: 'system error' }), { status: 500 });
    await assert.rejects(client([gateway, failed, gateway]).refunds.quoteAndSubmit({ orderNo: '1', refundRequestList: [] }, { idempotencyKey: 'k-504' }), (e: unknown) => {
      assert.ok(e instanceof PostbookError && e.httpStatus === 504, String(e));
      assert.equal(e.resubmit?.idempotencyKey, 'k-504');
      return true;
    });
    assert.deepEqual(sent, ['k-504', 'k-504', 'k-504'], 'sent, then resent twice (SUBMIT_RESENDS)');
    // a verdict of the service is not sent again
    sent.length = 0;
    const refused = () => new Response(JSON.stringify({ status: 803, msg: 'refund already submitted' }), { status: 200 });
    await assert.rejects(client([refused]).refunds.quoteAndSubmit({ orderNo: '1', refundRequestList: [] }), (e: unknown) => e instanceof PostbookError && e.status === 803);
    assert.equal(sent.length, 1);
  });

  test('quoteAndSubmit aborted by the caller while submitting: a TransportError carrying the key to send again (found by a review: the abort reason came out, the key lost)', async () => {
    const quote = { status: 0, msg: 'success', refundOfferId: 'rfo_1', refundTickets: [] };
    const sent: string[] = [];
    // refund.do hangs until aborted (or answers 814, in progress); the quote answers at once
    const fake = (refund: 'hang' | '814'): FetchLike => async (url, init) => {
      if (new URL(url).pathname !== '/refund.do') return new Response(JSON.stringify(quote), { status: 200 });
      sent.push(String((init.headers as Record<string, string>)['idempotency-key']));
      if (refund === '814') return new Response(JSON.stringify({ status: 814, msg: 'in progress' }), { status: 200 });
      return new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    };
    for (const refund of ['hang', '814'] as const) {
      sent.length = 0;
      const controller = new AbortController();
      const pending = new PostbookClient({ baseUrl: 'http://postbook.invalid', ...alpha, fetch: fake(refund) }).refunds.quoteAndSubmit({ orderNo: '1', refundRequestList: [] }, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 50));
      controller.abort(new Error('caller gave up'));
      await assert.rejects(pending, (e: unknown) => {
        assert.ok(e instanceof TransportError, `${refund}: ${String(e)}`);
        assert.match(e.message, /aborted by the caller/);
        assert.match(String((e.cause as Error).message), /caller gave up/);
        assert.equal(e.resubmit?.idempotencyKey, sent[0], refund);
        assert.equal((e.resubmit?.body as { refundOfferId: string }).refundOfferId, 'rfo_1');
        return true;
      });
      assert.ok(sent.length >= 1);
    }
  });

  test("headers: the caller's in any capitalisation never join the SDK's own; a key or request id the service would refuse is refused before sending (found by a review)", async () => {
    const seen: Array<Record<string, string>> = [];
    const fake: FetchLike = async (_url, init) => {
      seen.push(Object.fromEntries(new Headers(init.headers).entries()));
      return new Response(JSON.stringify({ status: 0, msg: null }), { status: 200 });
    };
    const client = new PostbookClient({ baseUrl: 'http://postbook.invalid', ...alpha, fetch: fake, headers: { 'X-Service-Client-Id': 'other', 'Content-Type': 'text/plain', 'X-Trace': 't-1' } });
    await client.refunds.query({ refundCode: '1' });
    assert.equal(seen[0]!['x-service-client-id'], alpha.clientId);
    assert.equal(seen[0]!['content-type'], 'application/json');
    assert.equal(seen[0]!['x-trace'], 't-1');
    for (const options of [{ idempotencyKey: 'ключ' }, { idempotencyKey: 'has space' }, { idempotencyKey: 'k'.repeat(256) }, { requestId: 'id with space' }, { requestId: 'é' }]) {
      await assert.rejects(client.refunds.submit({ refundOfferId: 'rfo_1' }, options), (e: unknown) => e instanceof PostbookClientError && !(e instanceof TransportError), JSON.stringify(options));
    }
    // quoteAndSubmit refuses such a key before it quotes (no offer made for nothing)
    await assert.rejects(client.refunds.quoteAndSubmit({ orderNo: '1', refundRequestList: [] }, { idempotencyKey: 'has space' }), (e: unknown) => e instanceof PostbookClientError);
    assert.equal(seen.length, 1, 'nothing sent for a refused key or id');
  });

  test('error names survive a minifying bundler; verifyWebhook without Web Crypto says so (found by a review)', async () => {
    const { build } = await import('esbuild');
    const out = await build({ entryPoints: [path.join(ROOT, 'packages/client/src/index.ts')], bundle: true, minify: true, format: 'esm', platform: 'browser', write: false });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-client-min-'));
    try {
      const file = path.join(dir, 'client.min.mjs');
      fs.writeFileSync(file, out.outputFiles[0]!.text);
      const min = (await import(pathToFileURL(file).href)) as Record<string, new (...a: unknown[]) => Error>;
      assert.equal(new min.TransportError!('POST /x', 'no answer').name, 'TransportError');
      assert.equal(new min.PostbookClientError!('x').name, 'PostbookClientError');
      assert.equal(new min.WaitTimeoutError!('refund', 'R1', null, 1).name, 'WaitTimeoutError');
      assert.equal(new min.RateLimitedError!({ endpoint: 'x', httpStatus: 429, status: 429, msg: 'm', requestId: null, body: null, retryAfterMs: 1, attempts: 1, limitType: null }).name, 'RateLimitedError');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const crypto = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
    Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });
    try {
      const input = { secret: 'whsec_x', headers: { 'x-service-webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-webhook-signature': 'a'.repeat(64) }, body: '{}' };
      await assert.rejects(verifyWebhook(input), (e: unknown) => e instanceof PostbookClientError && /Web Crypto/.test(e.message));
    } finally {
      Object.defineProperty(globalThis, 'crypto', crypto);
    }
  });

  test("the client's credentials stay out of what inspects or serializes it (found by a review: the options were a plain property)", () => {
    const client = new PostbookClient({ baseUrl: 'http://postbook.invalid', clientId: 'c-1', clientSecret: 'sdk-secret-never-shown', adminToken: 'admin-token-never-shown' });
    for (const shown of [util.inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client), String(Object.entries(client))]) {
      assert.ok(!shown.includes('sdk-secret-never-shown') && !shown.includes('admin-token-never-shown'), shown.slice(0, 300));
    }
  });

  test('verifyWebhook refuses a tolerance that is not a number of seconds, and a missing secret, instead of checking nothing', async () => {
    const input = { secret: 'whsec_x', headers: { 'x-service-webhook-timestamp': '1', 'x-service-webhook-signature': 'a'.repeat(64) }, body: '{}' };
    for (const toleranceSeconds of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      await assert.rejects(verifyWebhook({ ...input, toleranceSeconds }), /toleranceSeconds/);
    }
    await assert.rejects(verifyWebhook({ ...input, secret: '' }), /secret is required/);
    // now: NaN compared false with every age as well (a review): refused
    await assert.rejects(verifyWebhook({ ...input, now: Number.NaN }), (e: unknown) => e instanceof PostbookClientError && /now must be/.test(e.message));
  });

  test('options checked before anything is sent (found by a review): time-outs a timer cannot hold, NaN retries, credentials and headers a request cannot carry — never echoed; Infinity is no time-out; an empty header prefix is the default', async () => {
    let sent = 0;
    const slow: FetchLike = async () => {
      sent++;
      await new Promise((r) => setTimeout(r, 30));
      return new Response(JSON.stringify({ status: 0, msg: null, data: [] }), { status: 200 });
    };
    const base = { baseUrl: 'http://postbook.invalid', ...alpha, fetch: slow };
    // NaN, 0, negative, past 2³¹−1: the timer fired at once and every call was "no answer" after reaching the service
    for (const timeoutMs of [Number.NaN, 0, -1, 2 ** 31]) {
      assert.throws(() => new PostbookClient({ ...base, timeoutMs }), (e: unknown) => e instanceof PostbookClientError && /timeoutMs/.test(e.message), String(timeoutMs));
      await assert.rejects(new PostbookClient(base).refunds.query({ refundCode: '1' }, { timeoutMs }), (e: unknown) => e instanceof PostbookClientError && !(e instanceof TransportError), String(timeoutMs));
    }
    assert.equal(sent, 0, 'nothing sent');
    assert.equal((await new PostbookClient({ ...base, timeoutMs: Infinity }).refunds.query({ refundCode: '1' })).status, 0, 'Infinity: no time-out');
    assert.equal(sent, 1);
    for (const rateLimit of [{ retries: Number.NaN }, { maxWaitMs: Number.NaN }, { retries: -1 }]) {
      assert.throws(() => new PostbookClient({ ...base, rateLimit }), /rateLimit/, JSON.stringify(rateLimit));
    }
    // a control character in a credential or a header: refused by name, its value not in the message (fetch's
    // TypeError carried it, as a TransportError "may have been handled")
    const refused: Array<Partial<ClientOptions>> = [{ clientSecret: 'a\nSECRET-VALUE' }, { clientId: 'id SECRET-VALUE' }, { adminToken: 'tok\rSECRET-VALUE' }, { headers: { 'x-trace': 'v\nSECRET-VALUE' } }, { headers: { 'bad name': 'SECRET-VALUE' } }];
    for (const bad of refused) {
      assert.throws(
        () => new PostbookClient({ ...base, ...bad }),
        (e: unknown) => e instanceof PostbookClientError && !e.message.includes('SECRET-VALUE'),
        Object.keys(bad).join(),
      );
    }
    // an empty prefix is the service's default, as its HEADER_PREFIX unset or blank
    const seen: string[] = [];
    const look: FetchLike = async (_url, init) => {
      seen.push(...new Headers(init.headers).keys());
      return new Response(JSON.stringify({ status: 0, msg: null }), { status: 200 });
    };
    await new PostbookClient({ ...base, fetch: look, headerPrefix: ' ' }).refunds.query({ refundCode: '1' });
    assert.ok(seen.includes('x-service-client-secret'), seen.join());
  });

  test('a redirect is not followed: the credentials never go where it points (found by a review: fetch re-sent the POST with the client secret to another origin)', async () => {
    const http = await import('node:http');
    const got: Array<string | undefined> = [];
    const elsewhere = http.createServer((req, res) => {
      got.push(req.headers['x-service-client-secret'] as string | undefined);
      res.end('{"status":0,"msg":null}');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const to = `http://localhost:${(elsewhere.address() as { port: number }).port}/queryRefundOrders.do`;
    const redirecting = http.createServer((_req, res) => res.writeHead(307, { location: to }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', r));
    try {
      const client = new PostbookClient({ baseUrl: `http://127.0.0.1:${(redirecting.address() as { port: number }).port}`, ...alpha });
      await assert.rejects(client.refunds.query({ refundCode: '1' }), (e: unknown) => e instanceof PostbookError && e.httpStatus === 307 && /redirect/.test(e.msg));
      assert.deepEqual(got, [], 'nothing reached the address the redirect named');
    } finally {
      elsewhere.close();
      redirecting.close();
    }
  });

  test('waitForFinal pauses at least MIN_POLL_MS between queries, whatever delays it is given (found by a review: 0 and 0 queried ~700 times a second)', async () => {
    let queries = 0;
    const pending: FetchLike = async () => {
      queries++;
      return new Response(JSON.stringify({ status: 0, msg: 'success', refundOrders: [{ refundCode: 'R1', refundStatus: 0 }] }), { status: 200 });
    };
    const client = new PostbookClient({ baseUrl: 'http://postbook.invalid', ...alpha, fetch: pending });
    await assert.rejects(client.refunds.waitForFinal('R1', { initialDelayMs: 0, maxDelayMs: 0, timeoutMs: 1000 }), (e: unknown) => e instanceof WaitTimeoutError);
    assert.ok(queries >= 2 && queries <= 5, `${queries} queries in 1 s`);
  });
});

describe('SDK against the service: errors, auth, header prefix', () => {
  let t: TestApp;
  let baseUrl: string;
  before(async () => {
    t = await makeTestApp({ world: voidWorld(), clock: voidWorldClock() });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => t.close());

  test('spec 7.1 801: a business failure is a PostbookError with status, msg, HTTP status and request id', async () => {
    const client = new PostbookClient({ baseUrl, ...alpha });
    const body = { airlinePNR: 'NOSUCH', carrier: 'XS', refundRequestList: [{ lastName: 'NOBODY', firstName: 'TEST', refundReason: '1', segments: [{ depDate: '20300101', flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' }] }] };
    const err = await client.refunds.quote(body, { requestId: 'sdk-trace-801' }).then(
      () => assert.fail('a failure resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PostbookError);
    assert.equal(err.status, 801);
    assert.equal(err.httpStatus, 200);
    assert.equal(err.endpoint, 'POST /refundQuotation.do');
    assert.equal(err.requestId, 'sdk-trace-801', 'the request id the service answered with');
    assert.ok(err.msg.length > 0);
    // without a request id of ours the service's own is carried
    const other = (await client.refunds.quote(body).catch((e: unknown) => e)) as PostbookError;
    assert.match(String(other.requestId), /^[0-9a-f-]{36}$/);
    // spec 7.1 810: invalid request, same shape
    const invalid = (await client.refunds.quote({ ...body, refundRequestList: [{ ...body.refundRequestList[0]!, refundReason: '3' }] }).catch((e: unknown) => e)) as PostbookError;
    assert.equal(invalid.status, 810);
  });

  test('wrong credentials: HTTP 401 with status 900; the admin token guards the sandbox clock', async () => {
    const wrong = new PostbookClient({ baseUrl, clientId: TEST_CLIENTS.alpha.id, clientSecret: 'not-the-secret' });
    await assert.rejects(wrong.refunds.query({ refundCode: '1' }), (e: unknown) => e instanceof PostbookError && e.httpStatus === 401 && e.status === 900);
    const admin = new PostbookClient({ baseUrl, ...alpha, adminToken: TEST_ADMIN_TOKEN });
    const clock = await admin.sandbox.clock();
    assert.ok(Number.isFinite(Date.parse(clock.now)));
    await assert.rejects(new PostbookClient({ baseUrl, ...alpha, adminToken: 'wrong' }).sandbox.clock(), (e: unknown) => e instanceof PostbookError && e.httpStatus === 401);
  });

  test('HEADER_PREFIX: the client speaks the deployment\'s header words', async () => {
    const acme = await makeTestApp({ world: voidWorld(), env: { HEADER_PREFIX: 'acme' }, clock: voidWorldClock() });
    try {
      const url = await acme.app.listen({ port: 0, host: '127.0.0.1' });
      const answer = await new PostbookClient({ baseUrl: url, ...alpha, headerPrefix: 'acme' }).refunds.query({ airlinePNR: 'DEP001', carrier: 'XS' });
      assert.equal(answer.status, 0);
      assert.ok(Array.isArray(answer.refundOrders));
      await assert.rejects(new PostbookClient({ baseUrl: url, ...alpha }).refunds.query({ airlinePNR: 'DEP001', carrier: 'XS' }), (e: unknown) => e instanceof PostbookError && e.httpStatus === 401);
    } finally {
      await acme.close();
    }
  });
});

describe('SDK against the service: HTTP 429 (spec 8), seats.forSession', () => {
  let t: TestApp;
  let baseUrl: string;
  before(async () => {
    // The ancillary pool at 2 calls per 2 s window, so that a retry after Retry-After succeeds within the test.
    const pools = createRatePools({ redis: null, windowMs: 2_000, defaults: { ancillaryPerMinute: 2, verifyPerMinute: 60, pnrPerMinute: 120, searchPerSecond: 10 } });
    t = await makeTestApp({ world: bookingWorld(), pools });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => t.close());

  test('a 429 is waited out (Retry-After) and retried; past the retries it is a RateLimitedError', { timeout: 60_000 }, async () => {
    const rec = recordingFetch();
    const client = new PostbookClient({ baseUrl, ...alpha, fetch: rec.fetch, rateLimit: { retries: 2, maxWaitMs: 5_000 } });
    const session = await client.booking.verify({ adultNum: 1, outboundSegments: [verifySeg(t, 'bk-narrow')] });
    assert.equal(session.status, 0);

    const maps = [];
    for (let i = 0; i < 3; i++) maps.push(await client.seats.forSession(session));
    assert.ok(maps.every((m) => m.status === 0 && m.cabins.length > 0));
    assert.ok(maps[0]!.cabins[0]!.cabin.rows.some((r) => r.seats.some((s) => s.seatStatus === 'F' && s.productCode)), 'a free seat with its productCode');
    const seatCalls = rec.statuses.slice(1);
    assert.deepEqual(seatCalls.slice(0, 3), [200, 200, 429], 'the third call within the window was refused');
    assert.equal(seatCalls.at(-1), 200, 'and the retry after Retry-After went through');

    // No retries allowed: the refusal itself, typed
    const impatient = new PostbookClient({ baseUrl, ...alpha, rateLimit: { retries: 0 } });
    await impatient.seats.forSession(session).catch(() => undefined);
    await impatient.seats.forSession(session).catch(() => undefined);
    const err = await impatient.seats.forSession(session).then(
      () => assert.fail('three calls in a window of two passed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RateLimitedError, String(err));
    assert.equal(err.httpStatus, 429);
    assert.equal(err.status, 429);
    assert.equal(err.limitType, 'ancillary');
    assert.equal(err.attempts, 1);
    assert.ok(err.retryAfterMs > 0 && err.retryAfterMs <= 2_000);
    assert.ok(err.requestId);
    // A wait longer than the client accepts is not waited
    const bounded = new PostbookClient({ baseUrl, ...alpha, rateLimit: { retries: 5, maxWaitMs: 100 } });
    await new Promise((r) => setTimeout(r, 2_100));
    await bounded.seats.forSession(session);
    await bounded.seats.forSession(session);
    const started = Date.now();
    await assert.rejects(bounded.seats.forSession(session), (e: unknown) => e instanceof RateLimitedError && e.attempts === 1);
    assert.ok(Date.now() - started < 1_000, 'refused without waiting');
  });
});

/** The void world (the refund world and its void cases) plus a single-passenger deposit booking of alpha for the SDK's refund. */
function sdkWorld(): WorldFile {
  const w = voidWorld();
  // SDK001 for the refund followed to its end; SDK002, SDK003 for quoteAndSubmit's resend after a lost answer, and after
  // none at all; SDK004, SDK005 after 814 once and always
  for (const [pnr, last, ticketNo] of [
    ['SDK001', 'SDKONE', '999-3000000770'],
    ['SDK002', 'SDKTWO', '999-3000000771'],
    ['SDK003', 'SDKTHREE', '999-3000000772'],
    ['SDK004', 'SDKFOUR', '999-3000000773'],
    ['SDK005', 'SDKFIVE', '999-3000000774'],
  ] as const) {
    w.bookings.push({
      carrier: 'XS',
      status: 'Ticketed',
      contact: { email: 'sdk@example.invalid' },
      bookedBy: TEST_CLIENTS.alpha.id,
      paymentMethod: 'deposit',
      issuedAt: 'now',
      pnr,
      passengers: [{ ref: 'a', type: 'ADT', lastName: last, firstName: 'TEST' }],
      segments: [{ flight: 'out' }],
      tickets: [{ ticketNo, passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] }],
    });
  }
  return w;
}

describe('SDK against the service: a refund to its final status, webhooks verified', () => {
  let t: TestApp;
  let baseUrl: string;
  const receiver = new WebhookReceiver();
  /** alpha's signing secret, answered once by the first test's registration (the tests of this block run in order). */
  let hookSecret = '';
  before(async () => {
    await receiver.up();
    t = await makeTestApp({ world: sdkWorld(), workers: true, clock: voidWorldClock() });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await t.close();
    await receiver.down();
  });

  test('quoteAndSubmit, waitForFinal with the sandbox clock moved, every webhook verified, a tampered one refused', { timeout: 120_000 }, async () => {
    const options: ClientOptions = { baseUrl, ...alpha, adminToken: TEST_ADMIN_TOKEN };
    const client = new PostbookClient(options);
    const { webhookSecret } = await client.webhooks.updateUrl({ url: receiver.url });
    assert.match(String(webhookSecret), /^whsec_/);
    hookSecret = webhookSecret!;

    const request = {
      airlinePNR: 'SDK001',
      carrier: 'XS',
      refundRequestList: [{ lastName: 'SDKONE', firstName: 'TEST', refundReason: '1', segments: [refundSegment(t.world, 'out')] }],
    };
    // accept = false: quoted, nothing submitted
    const declined = await client.refunds.quoteAndSubmit(request, { accept: (q) => q.refundTickets.length > 5 });
    assert.equal(declined.refund, null);
    const { quote, refund } = await client.refunds.quoteAndSubmit(request, { idempotencyKey: 'sdk-refund-1', accept: (q) => q.refundQuoteType === 'AccurateQuote' });
    assert.ok(refund);
    assert.match(quote.refundOfferId, /^rfo_/);
    assert.equal(refund.refundStatus, 0);
    // The same key and body replay the first answer (the Idempotency-Key header was sent)
    const replay = await client.refunds.submit({ orderNo: null, airlinePNR: 'SDK001', carrier: 'XS', displayCurrency: null, refundOfferId: quote.refundOfferId, refundRequestList: null }, { idempotencyKey: 'sdk-refund-1' });
    assert.equal(replay.refundCode, refund.refundCode);
    // Without the key, the same offer again is refused: spec 7.1 813 (used offer) as a typed error
    await assert.rejects(client.refunds.submit({ airlinePNR: 'SDK001', carrier: 'XS', refundOfferId: quote.refundOfferId }), (e: unknown) => e instanceof PostbookError && e.status === 813);

    // A short wait times out with the last status seen
    await assert.rejects(client.refunds.waitForFinal(refund.refundCode, { timeoutMs: 300, initialDelayMs: 100 }), (e: unknown) => e instanceof WaitTimeoutError && e.code === refund.refundCode && e.lastStatus !== null && e.lastStatus < 2);

    // spec 3.1, deposit: 0 → 1 → 3 → 2. The sandbox airline decides 30 s (sandbox time) after submission
    // and pays 30 s later: each time the refund is seen waiting on the airline, the clock moves a minute.
    const seen: number[] = [];
    const moved = new Set<number>();
    const final = await client.refunds.waitForFinal(refund.refundCode, {
      timeoutMs: 60_000,
      initialDelayMs: 100,
      maxDelayMs: 500,
      onStatus: async (s) => {
        if (seen.at(-1) !== s) seen.push(s);
        if ((s === 1 || s === 3) && !moved.has(s)) {
          moved.add(s);
          await client.sandbox.moveClock({ advanceMinutes: 1 });
        }
      },
    });
    assert.equal(final.refundStatus, 2);
    assert.equal(final.refundCode, refund.refundCode);
    assert.deepEqual(seen.filter((s) => s !== 0), [1, 3, 2].filter((s) => seen.includes(s)));
    assert.ok(moved.has(1), 'the clock was moved while the airline processed');

    // docs/webhooks.md: the four changes are delivered signed; the SDK verifies each
    for (let i = 0; i < 50 && (await t.webhooks!.deliverDue()) > 0; i++);
    const mine = receiver.received.filter((r) => r.body.includes(refund.refundCode));
    assert.equal(mine.length, 4);
    const changes = [];
    for (const r of mine) {
      const event = await verifyWebhook({ secret: webhookSecret!, headers: r.headers, body: r.body });
      assert.equal(event.type, 'order.refund');
      if (event.type !== 'order.refund') continue;
      changes.push([event.data.previousRefundStatus, event.data.refundStatus]);
      assert.equal(event.data.refundCode, refund.refundCode);
      // the SDK's hand-written event type names exactly the fields the service sends
      const fields: Record<keyof RefundEventData, true> = {
        orderNo: true, refundCode: true, previousRefundStatus: true, refundStatus: true, cancelReason: true, refundReason: true, refundMethod: true, quoteType: true,
        currency: true, estimatedRefundAmount: true, actualRefundAmount: true, serviceFee: true, ticketNos: true, completedOn: true, message: true,
      };
      assert.deepEqual(Object.keys(event.data).sort(), Object.keys(fields).sort());
      // the raw bytes verify as well as the string; a Headers object as well as Node's record
      const headers = new Headers(Object.entries(r.headers).map(([k, v]) => [k, String(v)] as [string, string]));
      assert.equal((await verifyWebhook({ secret: webhookSecret!, headers, body: new TextEncoder().encode(r.body) })).eventId, event.eventId);
    }
    assert.deepEqual(changes, [[null, 0], [0, 1], [1, 3], [3, 2]]);

    // Tampered, wrong secret, replayed late, unsigned: refused with the reason
    const last = mine.at(-1)!;
    const refused = async (input: Parameters<typeof verifyWebhook>[0], reason: string) =>
      assert.rejects(verifyWebhook(input), (e: unknown) => e instanceof WebhookVerificationError && e.reason === reason);
    const tampered = last.body.replace(/"actualRefundAmount":[0-9.]+/, '"actualRefundAmount":99999');
    assert.notEqual(tampered, last.body);
    await refused({ secret: webhookSecret!, headers: last.headers, body: tampered }, 'bad-signature');
    await refused({ secret: 'whsec_not-the-secret', headers: last.headers, body: last.body }, 'bad-signature');
    await refused({ secret: webhookSecret!, headers: last.headers, body: last.body, now: Date.now() + 10 * 60_000 }, 'stale-timestamp');
    const { 'x-service-webhook-signature': _sig, ...unsigned } = last.headers;
    await refused({ secret: webhookSecret!, headers: unsigned, body: last.body }, 'missing-header');
    await refused({ secret: webhookSecret!, headers: { ...last.headers, 'x-service-webhook-signature': 'zz' }, body: last.body }, 'malformed-signature');
    // a different header prefix names different headers
    await refused({ secret: webhookSecret!, headers: last.headers, body: last.body, headerPrefix: 'acme' }, 'missing-header');
  });

  test("quoteAndSubmit whose submission's answer is lost sends it again under the same key: one refund, its code answered (found by a review: a caller retrying the whole call quoted anew and got 803)", { timeout: 60_000 }, async () => {
    let lost = 0;
    const keys: string[] = [];
    const losing: FetchLike = async (url, init) => {
      const res = await fetch(url, init);
      if (new URL(url).pathname === '/refund.do') {
        keys.push(String((init.headers as Record<string, string>)['idempotency-key']));
        // the service made the refund; its answer never reaches the caller
        if (lost++ === 0) throw new TypeError('fetch failed: connection reset');
      }
      return res;
    };
    const client = new PostbookClient({ baseUrl, ...alpha, fetch: losing });
    const requestOf = (pnr: string, last: string) => ({
      airlinePNR: pnr,
      carrier: 'XS',
      refundRequestList: [{ lastName: last, firstName: 'TEST', refundReason: '1', segments: [refundSegment(t.world, 'out')] }],
    });
    const { refund } = await client.refunds.quoteAndSubmit(requestOf('SDK002', 'SDKTWO'));
    assert.ok(refund);
    assert.equal(keys.length, 2, 'sent twice');
    assert.equal(keys[0], keys[1], 'under one key, made by the SDK');
    assert.match(keys[0]!, /^[0-9a-f]{32}$/);
    const made = await t.store.db.selectFrom('refund_orders').innerJoin('orders', 'orders.order_no', 'refund_orders.order_no').select('refund_code').where('orders.airline_pnr', '=', 'SDK002').execute();
    assert.deepEqual(made.map((r) => r.refund_code), [refund.refundCode], 'one refund');

    // no answer at all: the error carries the request and the key to send again
    const silent = new PostbookClient({ baseUrl, ...alpha, fetch: async (url, init) => (new URL(url).pathname === '/refund.do' ? Promise.reject(new TypeError('fetch failed')) : fetch(url, init)) });
    await assert.rejects(silent.refunds.quoteAndSubmit(requestOf('SDK003', 'SDKTHREE'), { idempotencyKey: 'sdk-lost-1' }), (e: unknown) => {
      assert.ok(e instanceof TransportError);
      assert.equal(e.resubmit?.idempotencyKey, 'sdk-lost-1');
      assert.match(String((e.resubmit?.body as { refundOfferId: string }).refundOfferId), /^rfo_/);
      return true;
    });

    // 814 (a submission under the key in progress): sent again under the same key, and past the resends the error
    // carries the request and the key (found by a review: the key the SDK made was lost with the error)
    const busyKeys: string[] = [];
    const busy = (times: number): FetchLike => {
      let left = times;
      return async (url, init) => {
        if (new URL(url).pathname !== '/refund.do') return fetch(url, init);
        busyKeys.push(String((init.headers as Record<string, string>)['idempotency-key']));
        if (left-- > 0) return new Response(JSON.stringify({ status: 814, msg: 'submission in progress' }), { status: 200, headers: { 'content-type': 'application/json' } });
        return fetch(url, init);
      };
    };
    const once = await new PostbookClient({ baseUrl, ...alpha, fetch: busy(1) }).refunds.quoteAndSubmit(requestOf('SDK004', 'SDKFOUR'));
    assert.ok(once.refund, 'made on the resend');
    assert.equal(busyKeys.length, 2);
    assert.equal(busyKeys[0], busyKeys[1], 'under one key');
    await assert.rejects(new PostbookClient({ baseUrl, ...alpha, fetch: busy(10) }).refunds.quoteAndSubmit(requestOf('SDK005', 'SDKFIVE'), { idempotencyKey: 'sdk-busy-1' }), (e: unknown) => {
      assert.ok(e instanceof PostbookError && e.status === 814);
      assert.equal(e.resubmit?.idempotencyKey, 'sdk-busy-1');
      return true;
    });
  });

  test('voids: quote, submit with an Idempotency-Key, waitForFinal to 2 with the clock moved; order.void webhooks verify', { timeout: 120_000 }, async () => {
    const client = new PostbookClient({ baseUrl, ...alpha, adminToken: TEST_ADMIN_TOKEN });
    const { webhookSecret } = await client.webhooks.updateUrl({ url: receiver.url });
    assert.equal(webhookSecret, null, 'registered by the refund test: the secret is shown once');
    const quote = await client.voids.quote({ airlinePNR: 'VDEP01', carrier: 'XS' });
    assert.equal(quote.isVoidable, true);
    const submitted = await client.voids.submit({ airlinePNR: 'VDEP01', carrier: 'XS', voidOfferId: quote.voidOfferId }, { idempotencyKey: 'sdk-void-1' });
    const again = await client.voids.submit({ airlinePNR: 'VDEP01', carrier: 'XS', voidOfferId: quote.voidOfferId }, { idempotencyKey: 'sdk-void-1' });
    assert.equal(again.voidCode, submitted.voidCode, 'replayed, not voided twice');
    const moved = new Set<number>();
    const done = await client.voids.waitForFinal(submitted.voidCode, {
      timeoutMs: 60_000,
      initialDelayMs: 100,
      maxDelayMs: 500,
      onStatus: async (s) => {
        if ((s === 1 || s === 3) && !moved.has(s)) {
          moved.add(s);
          await client.sandbox.moveClock({ advanceMinutes: 1 });
        }
      },
    });
    assert.equal(done.voidStatus, 2);
    assert.equal(done.actualRefundAmount, 515);

    for (let i = 0; i < 50 && (await t.webhooks!.deliverDue()) > 0; i++);
    const mine = receiver.received.filter((r) => r.body.includes(submitted.voidCode));
    const secret = hookSecret;
    const changes = [];
    for (const r of mine) {
      const event = await verifyWebhook({ secret, headers: r.headers, body: r.body });
      assert.equal(event.type, 'order.void');
      if (event.type !== 'order.void') continue;
      changes.push([event.data.previousVoidStatus, event.data.voidStatus]);
      const fields: Record<keyof VoidEventData, true> = {
        orderNo: true, voidCode: true, previousVoidStatus: true, voidStatus: true, cancelReason: true, currency: true, voidAmount: true,
        actualRefundAmount: true, ticketNos: true, completedOn: true, message: true,
      };
      assert.deepEqual(Object.keys(event.data).sort(), Object.keys(fields).sort());
    }
    assert.deepEqual(changes, [[null, 0], [0, 1], [1, 3], [3, 2]]);
  });
});
