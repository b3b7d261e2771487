// No input answers HTTP 500 (issue 13). Every POST endpoint of the OpenAPI document — the spec endpoints, the
// booking chain, pnr and the sandbox — gets bodies generated from its own request schema (fast-check): valid
// ones, and ones where one value is replaced by a NUL or another control character, an unpaired surrogate, a
// number no store column holds, a value of the wrong type, a missing field or a nesting a million levels deep.
// Any body holding a value no store could hold is refused with the family's invalid-request status and a msg
// naming the field (src/http/validation.ts); no body at all gets HTTP 500 / 9999. The app runs on the test store:
// PGlite, or PostgreSQL when DATABASE_URL is set.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { adminHeaders, authHeaders, makeTestApp, type TestApp } from '../test-support/app.js';
import { createRatePools } from '../ratelimit/pools.js';
import { VALIDATION_STATUS } from '../errors.js';
import { MAX_WIRE_DEPTH, MAX_WIRE_NUMBER } from './validation.js';

/** Requests per endpoint: a few seconds for the whole file on either store (FUZZ_RUNS=1000 for a long hunt). */
const RUNS_PER_ENDPOINT = Number(process.env.FUZZ_RUNS) || 50;

// The invalid-request status of each OpenAPI tag's family.
const FAMILY_STATUS: Record<string, number> = {
  pnr: VALIDATION_STATUS.pnr, // docs/decisions/0004: 100
  refunds: VALIDATION_STATUS.refund, // spec 7.1: 810
  seats: VALIDATION_STATUS.seat, // spec 7.2: 220
  booking: VALIDATION_STATUS.booking, // docs/decisions/0012: 100
  orders: VALIDATION_STATUS.order, // order.do, docs/decisions/0023: 307
  payments: VALIDATION_STATUS.pay, // pay.do, docs/decisions/0023: 400
  sandbox: VALIDATION_STATUS.admin, // 100
  webhooks: VALIDATION_STATUS.webhook, // docs/webhooks.md: 100
  voids: VALIDATION_STATUS.refund, // docs/voids.md: the refund family, 810
};
// Endpoints of a tag with a status of their own (Atlas API_shopping and ticketing.md documents no 100 for these).
const URL_STATUS: Record<string, number> = {
  '/verify.do': VALIDATION_STATUS.verify, // VerifyResponseStatus 212 illegal request parameter; docs/decisions/0021
  '/getLuggage.do': VALIDATION_STATUS.luggage, // getLuggage.do 212 illegal parameter; docs/decisions/0024
};
const invalidStatusOf = (e: Endpoint) => URL_STATUS[e.url] ?? FAMILY_STATUS[e.tag];

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  nullable?: boolean;
}

interface Endpoint {
  url: string;
  tag: string;
  body: Schema;
  headers: string[];
}

// ---- values from a schema ----

function valid(s: Schema): fc.Arbitrary<unknown> {
  const base = validNonNull(s);
  return s.nullable ? fc.oneof(base, fc.constant(null)) : base;
}

function validNonNull(s: Schema): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const union = s.anyOf ?? s.oneOf;
  if (union) return fc.oneof(...union.map(valid));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const props = s.properties ?? {};
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v)])), {
        requiredKeys: (s.required ?? []).filter((k) => k in props),
      });
    }
    case 'array': {
      const min = s.minItems ?? 0;
      return fc.array(valid(s.items ?? {}), { minLength: min, maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'string': {
      const min = s.minLength ?? 0;
      const max = s.maxLength ?? 40;
      if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
      return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 12)) });
    }
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---- values no store can hold, and values of the wrong type ----

/** Written into the JSON text as it is (numbers JSON.stringify cannot write, nestings too deep to build). */
class Raw {
  constructor(readonly text: string) {}
}
const RAW_MARK = 'fuzz-raw:';

interface Bad {
  value: unknown;
  /** The wire must refuse it wherever it stands (the family's invalid-request status). */
  unsafe: boolean;
}

const CONTROL_OR_SURROGATE = ['\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f', '\ud800', '\udbff', '\udc00', '\udfff'];
const arbUnsafeString = fc
  .tuple(fc.string({ maxLength: 6 }), fc.constantFrom(...CONTROL_OR_SURROGATE), fc.string({ maxLength: 6 }))
  .map(([a, bad, b]) => a + bad + b);
const arbHugeNumber = fc.oneof(
  fc.constantFrom(MAX_WIRE_NUMBER + 1, -MAX_WIRE_NUMBER - 1, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 1.5e19),
  fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1e309').map((t) => new Raw(t)),
);
const arbDeep = fc.constantFrom(MAX_WIRE_DEPTH + 1, 1_000, 200_000).map((n) => new Raw('['.repeat(n) + ']'.repeat(n)));
const arbUnsafe: fc.Arbitrary<Bad> = fc.oneof(arbUnsafeString, arbHugeNumber, arbDeep).map((value) => ({ value, unsafe: true }));
const arbWrongType: fc.Arbitrary<Bad> = fc
  .constantFrom<unknown>(null, true, false, 0, -1, 1.5, '', 'x', '0', [], {}, [null], { a: 1 }, '2026-01-01', 'A'.repeat(500))
  .map((value) => ({ value, unsafe: false }));

type Mutation = { kind: 'replace'; bad: Bad } | { kind: 'badKey'; key: string } | { kind: 'drop' };

/** Every path to a value inside `v` (not the root itself). */
function pathsOf(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(v)) return v.flatMap((c, i) => [[...at, i], ...pathsOf(c, [...at, i])]);
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, c]) => [[...at, k], ...pathsOf(c, [...at, k])]);
  return [];
}

function mutate(body: unknown, pick: number, m: Mutation): { body: unknown; unsafe: boolean } {
  const copy = structuredClone(body) as Record<string, unknown>;
  const paths = pathsOf(copy);
  // one extra "path": a property no schema names
  const path = pick % (paths.length + 1) === paths.length ? ['fuzzExtra'] : paths[pick % (paths.length + 1)]!;
  let parent: any = copy;
  for (const step of path.slice(0, -1)) parent = parent[step];
  const last = path[path.length - 1]!;
  if (m.kind === 'replace') {
    parent[last] = m.bad.value;
    return { body: copy, unsafe: m.bad.unsafe };
  }
  if (m.kind === 'badKey') {
    if (Array.isArray(parent) || parent === null || typeof parent !== 'object') parent = copy;
    parent[m.key] = 'x';
    return { body: copy, unsafe: true };
  }
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return { body: copy, unsafe: false };
}

const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: arbUnsafe.map((bad) => ({ kind: 'replace' as const, bad })) },
  { weight: 2, arbitrary: arbWrongType.map((bad) => ({ kind: 'replace' as const, bad })) },
  { weight: 1, arbitrary: arbUnsafeString.map((key) => ({ kind: 'badKey' as const, key })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
);

function toJson(body: unknown): string {
  return JSON.stringify(body, (_k, v: unknown) => (v instanceof Raw ? RAW_MARK + v.text : v)).replace(
    new RegExp(`"${RAW_MARK}([^"]*)"`, 'g'),
    (_m, text: string) => text,
  );
}

/** A request of the endpoint: its body (valid or with one mutation) and its optional headers. */
function arbRequest(e: Endpoint) {
  const header = fc.option(fc.oneof(fc.string({ minLength: 1, maxLength: 20 }).map((value) => ({ value, unsafe: false })), arbUnsafeString.map((value) => ({ value, unsafe: true }))), { nil: undefined });
  return fc
    .tuple(valid(e.body), fc.option(fc.tuple(fc.nat(), arbMutation), { freq: 4, nil: undefined }), ...e.headers.map(() => header))
    .map(([body, mutation, ...hs]) => {
      const out = mutation ? mutate(body, mutation[0], mutation[1]) : { body, unsafe: false };
      const headers: Record<string, string> = {};
      let unsafe = out.unsafe;
      e.headers.forEach((name, i) => {
        const h = hs[i];
        if (!h) return;
        headers[name] = h.value;
        unsafe ||= h.unsafe;
      });
      return { json: toJson(out.body), headers, unsafe };
    });
}

describe('no input answers HTTP 500', () => {
  let t: TestApp;
  let endpoints: Endpoint[];

  before(async () => {
    // Rate pools out of the way: a 429 would hide what the store does with the request.
    t = await makeTestApp({
      pools: createRatePools({ redis: null, defaults: { ancillaryPerMinute: 1_000_000, verifyPerMinute: 1_000_000, pnrPerMinute: 1_000_000, searchPerSecond: 1_000_000 } }),
      lookToBook: { check: async () => undefined, recordSeatRequest: async () => undefined, recordPaidOrder: async () => undefined },
    });
    const doc = t.app.swagger() as { paths: Record<string, Record<string, any>> };
    endpoints = Object.entries(doc.paths).flatMap(([url, ops]) => {
      const post = ops.post;
      if (!post) return [];
      const body = post.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      const headers = ((post.parameters ?? []) as Array<{ in: string; name: string }>).filter((p) => p.in === 'header').map((p) => p.name);
      return [{ url, tag: String(post.tags?.[0]), body: body ?? { type: 'object' }, headers }];
    });
  });
  after(() => t.close());

  async function send(e: Endpoint, json: string, headers: Record<string, string> = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: e.url,
      headers: { 'content-type': 'application/json', ...(e.tag === 'sandbox' ? adminHeaders : authHeaders()), ...headers },
      payload: json,
    });
    let body: { status?: unknown; msg?: unknown } = {};
    try {
      body = res.json();
    } catch {
      // asserted below
    }
    return { http: res.statusCode, body, raw: res.body };
  }

  test('the OpenAPI document lists every POST endpoint, each with a family', () => {
    const urls = endpoints.map((e) => e.url).sort();
    for (const url of ['/extractPnr.do', '/pnr/claim.do', '/refundQuotation.do', '/refund.do', '/queryRefundOrders.do', '/seatAvailability.do']) {
      assert.ok(urls.includes(url), `${url} in the OpenAPI document`);
    }
    for (const url of ['/search.do', '/verify.do', '/getOffers.do', '/order.do', '/pay.do', '/getLuggage.do', '/queryOrderDetails.do', '/sandbox/clock', '/voidQuotation.do', '/void.do', '/queryVoidOrders.do']) {
      assert.ok(urls.includes(url), `${url} in the OpenAPI document`);
    }
    for (const e of endpoints) assert.ok(e.tag in FAMILY_STATUS, `${e.url}: tag ${e.tag} has a family`);
  });

  test('a NUL in an id that reaches the store: the family invalid-request status, msg naming the field', async () => {
    const segment = { depDate: '20300101', flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' };
    const item = { lastName: 'A', firstName: 'B', refundReason: '1', segments: [segment] };
    const cases: Array<[string, unknown, number, string]> = [
      ['/queryRefundOrders.do', { refundCode: '12\u00003' }, 810, 'refundCode'], // spec 7.1: 810
      ['/queryRefundOrders.do', { orderNo: '12\u00003' }, 810, 'orderNo'], // spec 7.1: 810
      ['/refundQuotation.do', { orderNo: '1\u00002', refundRequestList: [item] }, 810, 'orderNo'], // spec 7.1: 810
      ['/refundQuotation.do', { airlinePNR: 'AB\u0000CD', carrier: 'XS', refundRequestList: [item] }, 810, 'airlinePNR'], // spec 7.1: 810
      ['/refundQuotation.do', { orderNo: '1', refundRequestList: [{ ...item, lastName: 'A\u0000' }] }, 810, 'refundRequestList.0.lastName'],
      ['/refund.do', { refundOfferId: 'rfo_\u0000' }, 810, 'refundOfferId'], // spec 7.1: 810
      ['/queryRefundOrders.do', { orderNo: 'a\ud800' }, 810, 'orderNo'], // spec 7.1: 810 (unpaired surrogate)
      [
        '/seatAvailability.do',
        { sessionId: 'a\u0000b', carrier: 'XS', outboundSegments: [{ flightNumber: 'XS101', depAirport: 'HND', arrAirport: 'SGN', depTime: '203001011030' }] },
        220,
        'sessionId',
      ], // spec 7.2: 220
      ['/verify.do', { routingIdentifier: 'rt_\u0000' }, 212, 'routingIdentifier'], // VerifyResponseStatus 212
      ['/getLuggage.do', { offerId: 'ofr_\u0000' }, 212, 'offerId'], // getLuggage.do 212 illegal parameter
      ['/queryOrderDetails.do', { orderNo: '1\u0000' }, 100, 'orderNo'],
      ['/pay.do', { orderNo: '1\u0000' }, 400, 'orderNo'], // docs/decisions/0023: 400
      [
        '/extractPnr.do',
        { airlinePnr: 'DEMO01', carrier: 'XS', passengers: [{ firstName: 'A', lastName: 'B\u0000' }], contact: { email: 'a@b.c' }, routing: { fromSegments: [] } },
        100,
        'passengers.0.lastName',
      ],
    ];
    for (const [url, body, status, field] of cases) {
      const res = await send({ url, tag: '', body: {}, headers: [] }, toJson(body));
      assert.equal(res.http, 200, `${url} ${field}: ${res.raw}`);
      assert.equal(res.body.status, status, `${url} ${field}: ${res.raw}`);
      assert.match(String(res.body.msg), new RegExp(`^invalid request: ${field.replace(/\./g, '\\.')} `), `${url}: ${res.raw}`);
    }
    // a nesting deeper than any request, in a property no schema names
    const deep = await send({ url: '/refund.do', tag: '', body: {}, headers: [] }, `{"refundOfferId":"rfo_x","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    assert.equal(deep.body.status, 810, deep.raw);
    assert.match(String(deep.body.msg), /nested too deeply/);
  });

  test(`${RUNS_PER_ENDPOINT} generated requests per endpoint: the family status for unsafe values, never HTTP 500`, async () => {
    for (const e of endpoints) {
      await fc.assert(
        fc.asyncProperty(arbRequest(e), async ({ json, headers, unsafe }) => {
          const res = await send(e, json, headers);
          const where = `${e.url} ${json.slice(0, 300)} ${JSON.stringify(headers)} → ${res.http} ${res.raw.slice(0, 300)}`;
          assert.notEqual(res.http, 500, where);
          assert.notEqual(res.body.status, 9999, where);
          // every answer carries status and msg, but the sandbox clock's own answer ({now, offsetMs})
          if (!(e.tag === 'sandbox' && res.http === 200 && 'now' in res.body)) {
            assert.equal(typeof res.body.status, 'number', where);
            assert.equal(typeof res.body.msg === 'string' || res.body.msg === null, true, where);
          }
          if (unsafe) {
            assert.equal(res.body.status, invalidStatusOf(e), where);
            assert.match(String(res.body.msg), /^invalid request/, where);
          }
        }),
        { numRuns: RUNS_PER_ENDPOINT },
      );
    }
  });
});
