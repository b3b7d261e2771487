// The operator console's JSON API without a browser (docs/console.md), on PGlite or PostgreSQL (DATABASE_URL):
// login (generic refusal, rate limit on failures), the session cookie's attributes, CSRF on every
// state-changing call, roles, the audit log with before/after, the 825 console cases (spec 7.1: 825) and the
// actions each allowed only in the states the lifecycle permits, the queue's filters, counts and SLA badges.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { call, makeTestApp, type TestApp, orderNoOfPnr } from '../src/test-support/app.js';
import { claimWorldBooking } from '../src/test-support/claim.js';
import { PLANTED } from '../src/test-support/planted.js';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { createOperator, verifyLogin } from '../src/console/operators.js';
import { FailedLogins, WINDOW_MS } from '../src/console/throttle.js';
import { CANCEL_REASON } from '../src/refunds/statuses.js';
import { contextCacheFor } from '../src/refunds/context-cache.js';
import { ConnectorError } from '../src/airline/connector.js';
import { SandboxConnector } from '../src/airline/sandbox/connector.js';
import { buildWorld } from '../src/airline/sandbox/world.js';
import { recordWorldStart, WorldFollower } from '../src/airline/sandbox/world-share.js';
import { sql } from 'kysely';
import { waitFor as waitUntil } from '../src/test-support/wait.js';
import { holdOrder } from '../src/test-support/order-hold.js';
import { postRefundsByCurrency } from '../src/console/detail.js';
import { settingsEdit } from '../console/src/client-forms.js';
import { carrierVoidClock } from '../src/test-support/void-world.js';
import { refundSegment } from '../src/test-support/refund-world.js';

const DEMO = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../worlds/demo.yaml'), 'utf8')) as WorldFile;
// A planted secret as password: the test runner fails the run should it ever reach a log line.
const PASSWORD = PLANTED.secrets[0];

interface Login {
  cookie: string;
  csrf: string;
  setCookie: string;
}

describe('console API', () => {
  let t: TestApp;
  before(async () => {
    // the queue's test voids DEMO27 of XS, voidable until the end of its issue day in Asia/Tokyo
    t = await makeTestApp({ world, clock: carrierVoidClock(world, 'XS') });
    const now = new Date();
    await createOperator(t.store.db, { login: 'vera.viewer', password: PASSWORD, role: 'viewer' }, now);
    await createOperator(t.store.db, { login: 'aga.agent', password: PASSWORD, role: 'agent' }, now);
    await createOperator(t.store.db, { login: 'ada.admin', password: PASSWORD, role: 'admin' }, now);
    await createOperator(t.store.db, { login: 'dan.disabled', password: PASSWORD, role: 'admin' }, now);
    await t.store.db.updateTable('operators').set({ disabled: true }).where('login', '=', 'dan.disabled').execute();
    demo31 = demo31Request();
  });
  after(() => t.close());

  const login = async (user: string, password: string = PASSWORD): Promise<Login> => {
    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: user, password } });
    assert.equal(res.statusCode, 200, res.body);
    const setCookie = String(res.headers['set-cookie']);
    return { cookie: setCookie.split(';')[0]!, csrf: res.json().csrfToken, setCookie };
  };
  const get = (s: Login | null, url: string) => t.app.inject({ method: 'GET', url: `/console/api${url}`, headers: s ? { cookie: s.cookie } : {} });
  const post = (s: Login | null, url: string, body: unknown = {}, csrf: string | null = s?.csrf ?? null) =>
    t.app.inject({ method: 'POST', url: `/console/api${url}`, headers: { ...(s ? { cookie: s.cookie } : {}), ...(csrf !== null ? { 'x-csrf-token': csrf } : {}) }, payload: body as object });

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  const demo31Request = () => ({ airlinePNR: 'DEMO31', carrier: 'XS', refundRequestList: [{ lastName: 'NOSHOW', firstName: 'NILS', refundReason: '1', segments: [seg('XS401-past')] }] });
  let demo31: ReturnType<typeof demo31Request>;
  const pendingCases = async () => (await t.store.db.selectFrom('console_cases').selectAll().where('status', '=', 'pending').execute());

  test('login: the right password opens a session; wrong password, unknown login and disabled account get one generic 401', async () => {
    const s = await login('aga.agent');
    assert.match(s.setCookie, /^postbook_console=[A-Za-z0-9_-]{40,};/);
    assert.match(s.setCookie, /HttpOnly/);
    assert.match(s.setCookie, /SameSite=Strict/);
    assert.match(s.setCookie, /Path=\/console/);
    assert.doesNotMatch(s.setCookie, /Secure/, 'CONSOLE_COOKIE_SECURE=auto: no Secure flag over plain http');
    const me = await get(s, '/session');
    assert.equal(me.statusCode, 200);
    assert.deepEqual(me.json().operator, { login: 'aga.agent', role: 'agent' });
    assert.equal(me.json().csrfToken, s.csrf);
    // The session table holds a digest, not the cookie's token.
    const token = decodeURIComponent(s.cookie.split('=')[1]!);
    const rows = await t.store.db.selectFrom('console_sessions').select('token_hash').execute();
    assert.ok(rows.length >= 1 && rows.every((r) => r.token_hash !== token));

    const answers = await Promise.all([
      t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: 'wrong-password-123' } }),
      t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'nobody.here', password: PASSWORD } }),
      t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'dan.disabled', password: PASSWORD } }),
    ]);
    for (const a of answers) {
      assert.equal(a.statusCode, 401);
      assert.deepEqual(a.json(), { error: 'login or password is wrong' });
      assert.equal(a.headers['set-cookie'], undefined);
    }
    // Not JSON (what a cross-site form would send): refused before any check.
    const form = await t.app.inject({ method: 'POST', url: '/console/api/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'login=aga.agent&password=x' });
    assert.equal(form.statusCode, 415);
  });

  test('login: five failures for one login block it (429) for a while, even with the right password', async () => {
    await createOperator(t.store.db, { login: 'tess.throttle', password: PASSWORD, role: 'viewer' }, new Date());
    for (let i = 0; i < 5; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'tess.throttle', password: `bad-password-${i}` } });
      assert.equal(r.statusCode, 401);
    }
    const blocked = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'tess.throttle', password: PASSWORD } });
    assert.equal(blocked.statusCode, 429);
    assert.match(blocked.json().error, /too many failed logins/);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
    // Another login from the same address is not blocked yet (the address limit is higher).
    await login('vera.viewer');
  });

  test('login: 40 attempts sent at once after a failure check at most four more passwords (the throttle counts an attempt before its password)', async () => {
    await createOperator(t.store.db, { login: 'rita.race', password: PASSWORD, role: 'viewer' }, new Date());
    // neither the login nor the address is blocked before: one wrong password is checked (401)
    assert.equal((await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'rita.race', password: 'bad-password-first' } })).statusCode, 401);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'rita.race', password: i === 39 ? PASSWORD : `bad-password-${i}` } }),
      ),
    );
    const codes = answers.map((a) => a.statusCode);
    // one address (its limit 20): the login's limit (5) is the one that binds; was 39 × 401 and the 40th's 200
    // (attempts truly at once, on PostgreSQL, may all count one another and all be refused: never more than four)
    assert.ok(codes.filter((c) => c !== 429).length <= 4, `passwords checked after the first: ${codes.join(' ')}`);
    assert.ok(codes.every((c) => [200, 401, 429].includes(c)), codes.join(' '));
    const rows = await t.store.db.selectFrom('console_login_failures').select('id').where('key_hash', '=', createHash('sha256').update('login:rita.race').digest('hex')).execute();
    assert.equal(rows.length, codes.includes(200) ? 0 : 1 + codes.filter((c) => c === 401).length, 'the refused attempts left no row; the failed ones one each');
  });

  test('behind a reverse proxy (TRUST_PROXY): the throttle counts the forwarded client address, the cookie is Secure over forwarded https', async () => {
    const behind = await makeTestApp({ world, store: t.store, clock: t.clock, env: { TRUST_PROXY: '127.0.0.1' } });
    try {
      await createOperator(t.store.db, { login: 'pat.proxy', password: PASSWORD, role: 'viewer' }, new Date());
      const via = (client: string, payload: object, proto = 'http') =>
        behind.app.inject({ method: 'POST', url: '/console/api/login', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client, 'x-forwarded-proto': proto }, payload });
      // a stranger's 20 failures (made-up logins) block the stranger's address, not everyone behind the proxy
      for (let i = 0; i < 20; i++) assert.equal((await via('203.0.113.66', { login: `nobody.${i}`, password: `bad-password-${i}` })).statusCode, 401);
      assert.equal((await via('203.0.113.66', { login: 'pat.proxy', password: PASSWORD })).statusCode, 429, 'the stranger is blocked');
      const ok = await via('198.51.100.20', { login: 'pat.proxy', password: PASSWORD }, 'https');
      assert.equal(ok.statusCode, 200, 'another client is not (without TRUST_PROXY both are 127.0.0.1 and both blocked)');
      assert.match(String(ok.headers['set-cookie']), /;\s*Secure/i, 'the forwarded https makes the cookie Secure');
      // decision 0062: Secure, it is the __Host- prefixed cookie for the whole origin, which no other origin can set
      assert.match(String(ok.headers['set-cookie']), /^__Host-postbook_console=[A-Za-z0-9_-]{40,};.*\bPath=\/;/);
    } finally {
      await behind.close();
    }
  });

  test('login throttle shared across API processes: failures at two app instances on one database add up; the store keeps only digests', async () => {
    await createOperator(t.store.db, { login: 'sam.shared', password: PASSWORD, role: 'viewer' }, new Date());
    // A second API process: its own app and in-process state, the same database and time (its start aligns the world's
    // orders to its own calendar).
    const t2 = await makeTestApp({ world, store: t.store, clock: t.clock });
    try {
      const fail = (app: TestApp, i: number) => app.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'Sam.Shared', password: `bad-password-${i}` } });
      for (let i = 0; i < 3; i++) assert.equal((await fail(t, i)).statusCode, 401);
      for (let i = 3; i < 5; i++) assert.equal((await fail(t2, i)).statusCode, 401);
      for (const app of [t, t2]) {
        const blocked = await app.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'sam.shared', password: PASSWORD } });
        assert.equal(blocked.statusCode, 429, 'five failures over two processes block the login in both');
      }
      const rows = await t.store.db.selectFrom('console_login_failures').selectAll().execute();
      assert.ok(rows.length >= 10);
      assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash)), 'keys are digests');
      assert.ok(!JSON.stringify(rows).includes('sam.shared') && !JSON.stringify(rows).includes('bad-password'));
    } finally {
      await t2.close();
    }
  });

  test('login throttle over one store: two throttles share counts, the window frees a key, a success clears its login, the address limit is 20', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const a = new FailedLogins(t.store.db, () => now);
    const b = new FailedLogins(t.store.db, () => now);
    const keys = ['login:unit.throttle', 'ip:198.51.100.7'];
    for (let i = 0; i < 4; i++) {
      await (i % 2 ? a : b).record(keys);
      now += 60_000;
    }
    assert.equal(await a.blockedFor(keys), 0, 'four failures: not yet');
    await b.record(keys);
    // Blocked until the oldest of the five (at 0:00) leaves the 15-minute window: now is 0:04.
    assert.equal(await a.blockedFor(keys), WINDOW_MS - 4 * 60_000);
    assert.equal(await b.blockedFor(['login:unit.throttle']), WINDOW_MS - 4 * 60_000);
    assert.equal(await a.blockedFor(['login:other.login']), 0);
    now += WINDOW_MS - 4 * 60_000 + 1;
    assert.equal(await a.blockedFor(keys), 0, 'the oldest failure left the window');
    // An attempt is counted before its password is checked: with four failures in the window one may go on, and
    // while it runs it counts for the others (a fifth is refused, its own row taken back).
    const attempt = (await b.reserve(keys)).attempt!;
    assert.ok(attempt, 'four failures in the window: an attempt may go on');
    const refused = await a.reserve(keys);
    assert.ok(refused.attempt === null && refused.wait > 0, 'a fifth at the same time is refused');
    // A success clears the login's failures but not the address's.
    await b.succeeded('login:unit.throttle', attempt);
    assert.equal(await a.blockedFor(['login:unit.throttle']), 0);
    assert.equal(await a.blockedFor(['ip:198.51.100.7']), 0, 'the address: its four failures, no row of the two attempts');
    assert.equal((await t.store.db.selectFrom('console_login_failures').select('id').where('id', 'in', attempt.ids).execute()).length, 0, 'the succeeded attempt left no row');
    now += WINDOW_MS;
    for (let i = 0; i < 19; i++) await a.record(['ip:198.51.100.7']);
    assert.equal(await b.blockedFor(['ip:198.51.100.7']), 0, '19 failures of the address in the window');
    await b.record(['ip:198.51.100.7']);
    assert.ok((await a.blockedFor(['ip:198.51.100.7'])) > 0, 'the 20th blocks the address');
  });

  test('no session: every API call but login answers 401', async () => {
    for (const url of ['/session', '/queue', '/cases', '/meta', '/refunds/123']) assert.equal((await get(null, url)).statusCode, 401, url);
    assert.equal((await post(null, '/cases/cc_x/approve', {}, 'x')).statusCode, 401);
    const forged = await t.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: 'postbook_console=not-a-session' } });
    assert.equal(forged.statusCode, 401);
  });

  test('spec 7.1: refund.do answers 825 for a voluntary refund after departure and records one console case; the quote still answers', async () => {
    const q = await call(t.app, '/refundQuotation.do', demo31, { client: DEMO });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const before = (await pendingCases()).length;
    const r1 = await call(t.app, '/refund.do', demo31, { client: DEMO });
    assert.equal(r1.http, 200);
    assert.deepEqual(r1.body, { status: 825, msg: 'a voluntary refund after departure must be submitted through the operator console' });
    // The same request again (e.g. a client retry) is the same case.
    const r2 = await call(t.app, '/refund.do', demo31, { client: DEMO });
    assert.equal(r2.body.status, 825);
    // By the quote's refundOfferId: the same request, the same case.
    const r3 = await call(t.app, '/refund.do', { airlinePNR: 'DEMO31', carrier: 'XS', refundOfferId: q.body.refundOfferId }, { client: DEMO });
    assert.equal(r3.body.status, 825);
    const cases = await pendingCases();
    assert.equal(cases.length, before + 1);
    const c = cases.at(-1)!;
    assert.equal(c.client_id, 'demo-agency');
    assert.deepEqual((c.request as any).refundRequestList, demo31.refundRequestList);
    assert.equal(await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', c.order_no).executeTakeFirst(), undefined, 'no refund was written');
  });

  test('CSRF: a state-changing call without the session token, or with another session\'s, is refused (403) and changes nothing', async () => {
    await call(t.app, '/refund.do', demo31, { client: DEMO });
    const [c] = await pendingCases();
    const agent = await login('aga.agent');
    const other = await login('ada.admin');
    for (const csrf of [null, '', 'guess', other.csrf]) {
      const r = await post(agent, `/cases/${c!.case_id}/approve`, {}, csrf);
      assert.equal(r.statusCode, 403, String(csrf));
      assert.match(r.json().error, /CSRF/);
    }
    assert.equal((await post(agent, '/logout', {}, null)).statusCode, 403);
    assert.equal((await pendingCases()).find((x) => x.case_id === c!.case_id)?.status, 'pending');
  });

  test('roles: a viewer reads but is refused every action (403); nothing changes, nothing is audited', async () => {
    await call(t.app, '/refund.do', demo31, { client: DEMO });
    const [c] = await pendingCases();
    const viewer = await login('vera.viewer');
    assert.equal((await get(viewer, '/queue')).statusCode, 200);
    assert.equal((await get(viewer, `/cases/${c!.case_id}`)).statusCode, 200);
    const refused = await post(viewer, `/cases/${c!.case_id}/approve`);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, 'your role (viewer) may not do this: it needs agent');
    assert.equal((await post(viewer, `/cases/${c!.case_id}/reject`, { cancelReason: CANCEL_REASON.POLICY })).statusCode, 403);
    assert.equal((await post(viewer, '/refunds/123/withdraw')).statusCode, 403);
    assert.equal((await post(viewer, '/webhooks/1/redeliver')).statusCode, 403);
    assert.equal((await get(viewer, '/audit')).statusCode, 403, 'the whole audit log is for admins');
    assert.equal((await pendingCases()).find((x) => x.case_id === c!.case_id)?.status, 'pending');
    const audited = await t.store.db.selectFrom('audit_log').select('action').where('operator_login', '=', 'vera.viewer').execute();
    assert.ok(audited.length >= 1 && audited.every((a) => a.action === 'login'), JSON.stringify(audited));
  });

  test('approve a console case while its order changes elsewhere: the approval reads it again and answers for the change (820: a coupon flown meanwhile); the case stays pending', async (ctx) => {
    if (!process.env.DATABASE_URL) return ctx.skip('PGlite has one connection: nothing else can change the order during the approval');
    await call(t.app, '/refund.do', demo31, { client: DEMO });
    const [c] = await pendingCases();
    const agent = await login('aga.agent');
    const was = (
      await sql<{ ticket_no: string; segment_index: number; status: string }>`
        select ticket_no, segment_index, status from ticket_coupons where ticket_no in (select ticket_no from tickets where order_no = ${c!.order_no})`.execute(t.store.db)
    ).rows;
    // the approval past its checks and waiting for the order, which another process holds and then flies
    const hold = await holdOrder(t.store.db, c!.order_no, ctx);
    const approving = post(agent, `/cases/${c!.case_id}/approve`);
    await hold.waiting(1);
    await hold.release((trx) => sql`update ticket_coupons set status = 'USED' where ticket_no in (select ticket_no from tickets where order_no = ${c!.order_no})`.execute(trx));
    let res;
    try {
      res = await approving;
    } finally {
      for (const k of was) await sql`update ticket_coupons set status = ${k.status} where ticket_no = ${k.ticket_no} and segment_index = ${k.segment_index}`.execute(t.store.db);
    }
    assert.equal(res.statusCode, 409, res.body);
    assert.match(res.json().error, /code 820/);
    assert.equal(await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', c!.order_no).executeTakeFirst(), undefined, 'no refund was written');
    assert.equal((await pendingCases()).find((x) => x.case_id === c!.case_id)?.status, 'pending');
  });

  test('approve a console case: a refund at status 0 with its submission due, the case approved, both audited with before/after; a second decision is refused', async () => {
    await call(t.app, '/refund.do', demo31, { client: DEMO });
    const [c] = await pendingCases();
    const agent = await login('aga.agent');
    // The case page prices the request as the approval will, writing nothing (found by a review: Approve created and
    // submitted a refund whose amount neither the page nor the confirmation showed).
    const offers = async () => Number((await sql<{ n: string | number }>`select count(*) as n from refund_offers`.execute(t.store.db)).rows[0]!.n);
    const offersBefore = await offers();
    const shown = (await get(agent, `/cases/${c!.case_id}`)).json().case;
    assert.equal(await offers(), offersBefore, 'reading the case stores no offer');
    const estimate = shown.estimate;
    assert.ok(estimate && !('unavailable' in estimate), JSON.stringify(estimate));
    assert.equal(estimate.quoteType, 'AccurateQuote');
    assert.ok(estimate.refundMinor > 0, JSON.stringify(estimate));
    assert.ok(Date.parse(estimate.pricedAt) <= t.clock.now().getTime(), 'priced at the service clock');
    const res = await post(agent, `/cases/${c!.case_id}/approve`);
    assert.equal(res.statusCode, 200, res.body);
    const { refundCode } = res.json();
    const refund = await t.store.db.selectFrom('refund_orders').selectAll().where('refund_code', '=', refundCode).executeTakeFirstOrThrow();
    // the same rule window a moment later: the approval priced what the page showed
    assert.deepEqual([estimate.currency, estimate.refundMinor, estimate.serviceFee, estimate.path], [refund.currency, Number(refund.estimated_refund_minor), { currency: refund.service_fee_currency, minor: Number(refund.service_fee_minor) }, refund.path]);
    assert.equal((await get(agent, `/cases/${c!.case_id}`)).json().case.estimate, null, 'a decided case is not priced');
    assert.equal(refund.status, 0);
    assert.ok(refund.next_poll_at !== null && new Date(refund.next_poll_at).getTime() <= t.clock.now().getTime(), 'its submission due (decision 0035)');
    assert.equal(refund.reason, '1');
    assert.equal(refund.client_id, 'demo-agency');
    const history = await t.store.db.selectFrom('refund_status_history').select(['to_status', 'cause']).where('refund_code', '=', refundCode).execute();
    assert.deepEqual(history.map((h) => h.to_status), [0]);
    assert.match(history[0]!.cause, /^approved in the console \(case /);
    assert.ok(!history[0]!.cause.includes('aga.agent'), 'the operator is not in the cause the client\'s webhook carries (found by a review)');
    const decided = await t.store.db.selectFrom('console_cases').selectAll().where('case_id', '=', c!.case_id).executeTakeFirstOrThrow();
    assert.equal(decided.status, 'approved');
    assert.equal(decided.refund_code, refundCode);
    assert.equal(decided.decided_by, 'aga.agent');
    const audit = await t.store.db.selectFrom('audit_log').selectAll().where('target', 'in', [`case:${c!.case_id}`, `refund:${refundCode}`]).orderBy('id').execute();
    assert.deepEqual(audit.map((a) => [a.operator_login, a.action]), [['aga.agent', 'case.approve'], ['aga.agent', 'refund.create']]);
    assert.deepEqual(audit[0]!.before, { status: 'pending' });
    assert.deepEqual(audit[0]!.after, { status: 'approved', refundCode });
    assert.ok(audit[0]!.at instanceof Date || typeof audit[0]!.at === 'string');
    // The client sees the refund like any other (spec 4.3).
    const q = await call(t.app, '/queryRefundOrders.do', { refundCode }, { client: DEMO });
    assert.equal((q.body as any).refundOrders[0].refundStatus, 0);
    // Decided already: refused, nothing more written.
    const again = await post(agent, `/cases/${c!.case_id}/approve`);
    assert.equal(again.statusCode, 409);
    assert.match(again.json().error, /already decided \(approved by aga\.agent\)/);
    // The tickets now have a live refund: a new 825 request of the same passenger is refused by the checks at approval (803).
    await t.store.db.insertInto('console_cases').values({ case_id: 'cc_dup', client_id: 'demo-agency', order_no: refund.order_no, request: JSON.stringify(c!.request), request_hash: 'x', created_at: new Date() }).execute();
    // the page says why instead of an amount, as the approval answers
    const noEstimate = (await get(agent, '/cases/cc_dup')).json().case.estimate;
    assert.match(noEstimate.unavailable, /^the refund cannot be created: .*\(code 803\)$/);
    const dup = await post(agent, '/cases/cc_dup/approve');
    assert.equal(dup.statusCode, 409);
    assert.match(dup.json().error, /code 803/);
    assert.equal(dup.json().error, noEstimate.unavailable);
    assert.equal((await t.store.db.selectFrom('console_cases').select('status').where('case_id', '=', 'cc_dup').executeTakeFirstOrThrow()).status, 'pending');
    // The detail shows the case and its audit.
    const detail = (await get(agent, `/refunds/${refundCode}`)).json().refund;
    assert.equal(detail.consoleCase.caseId, c!.case_id);
    assert.deepEqual(detail.audit.map((a: { action: string }) => a.action), ['refund.create']);
    // The quote explained per ticket: the after-departure rule (a window ending before 0), its arithmetic adding up to the stored refund.
    assert.equal(detail.explanation.length, 1);
    const x = detail.explanation[0];
    assert.ok(x.rule && x.rule.ruleType === '1' && x.minutesToDeparture < 0, JSON.stringify(x));
    assert.equal(x.ticketRefundMinor, x.refundableMinor - x.penaltyMinor - x.airlineFeeMinor);
    assert.equal(x.totalRefundMinor, detail.quote.tickets[0].refundMinor);
    assert.equal(x.storedRefundMinor, null);
    assert.ok(x.reasons.length >= 1);
    // Clean up the extra case for the next tests.
    await t.store.db.deleteFrom('console_cases').where('case_id', '=', 'cc_dup').execute();
  });

  test('reject a console case with a spec 2.11 cancelReason; any other text is refused', async () => {
    await t.store.db.insertInto('console_cases').values({ case_id: 'cc_rej', client_id: 'demo-agency', order_no: await orderNoOfPnr(t.store.db, 'DEMO31'), request: JSON.stringify({ orderNo: 'x', refundRequestList: [], displayCurrency: null }), request_hash: 'rej', created_at: new Date() }).execute();
    const agent = await login('aga.agent');
    assert.deepEqual((await get(agent, '/cases/cc_rej')).json().case.estimate, { unavailable: 'the request lists no passenger' });
    const bad = await post(agent, '/cases/cc_rej/reject', { cancelReason: 'because' });
    assert.equal(bad.statusCode, 409);
    assert.match(bad.json().error, /spec 2\.11/);
    const ok = await post(agent, '/cases/cc_rej/reject', { cancelReason: CANCEL_REASON.VOLUNTARY_NON_REFUNDABLE });
    assert.equal(ok.statusCode, 200, ok.body);
    const c = await t.store.db.selectFrom('console_cases').selectAll().where('case_id', '=', 'cc_rej').executeTakeFirstOrThrow();
    assert.equal(c.status, 'rejected');
    assert.equal(c.cancel_reason, CANCEL_REASON.VOLUNTARY_NON_REFUNDABLE);
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', 'case:cc_rej').execute();
    assert.equal(a!.action, 'case.reject');
    assert.deepEqual(a!.after, { status: 'rejected', cancelReason: CANCEL_REASON.VOLUNTARY_NON_REFUNDABLE });
    assert.equal((await get(agent, '/cases?status=rejected')).json().cases.some((x: { caseId: string }) => x.caseId === 'cc_rej'), true);
  });

  test('withdraw: a refund claim not yet at the airline goes to 6 (audited); a deposit refund, or a final one, is refused with the reason', async () => {
    await claimWorldBooking(t, 'DEMO11', DEMO);
    const claim = await call(t.app, '/refund.do', { airlinePNR: 'DEMO11', carrier: 'XS', refundRequestList: [{ lastName: 'WITHDRAW', firstName: 'WALT', refundReason: '1', segments: [seg('XS101-out')] }] }, { client: DEMO });
    assert.equal(claim.body.status, 0, String(claim.body.msg));
    const claimCode = String(claim.body.refundCode);
    const deposit = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments: [seg('XS101-out'), seg('XS102-ret')] }] }, { client: DEMO });
    assert.equal(deposit.body.status, 0, String(deposit.body.msg));
    const depositCode = String(deposit.body.refundCode);
    const agent = await login('aga.agent');

    const refused = await post(agent, `/refunds/${depositCode}/withdraw`);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error, /cannot withdraw: only refund claims and pass-through virtual card refunds/);
    // Its submission is due (no worker runs here): the lifecycle's sweep may be sending it this moment — refused.
    const due = await post(agent, `/refunds/${claimCode}/withdraw`);
    assert.equal(due.statusCode, 409);
    assert.match(due.json().error, /being sent to the airline now/);
    assert.equal((await get(agent, `/refunds/${claimCode}`)).json().refund.actions.withdraw.allowed, false);
    // Its attempt failed and the next one is a minute away (as the sweep writes it): nothing is on its way.
    await t.store.db.updateTable('refund_orders').set({ next_poll_at: new Date(t.clock.now().getTime() + 60_000), poll_failures: 1 }).where('refund_code', '=', claimCode).execute();
    const detail = (await get(agent, `/refunds/${claimCode}`)).json().refund;
    assert.deepEqual(detail.actions.withdraw, { allowed: true });

    const ok = await post(agent, `/refunds/${claimCode}/withdraw`);
    assert.equal(ok.statusCode, 200, ok.body);
    const q = await call(t.app, '/queryRefundOrders.do', { refundCode: claim.body.refundCode }, { client: DEMO });
    assert.equal((q.body as any).refundOrders[0].refundStatus, 6);
    assert.equal((q.body as any).refundOrders[0].cancelReason, CANCEL_REASON.USER_CANCELLED);
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', `refund:${claimCode}`).execute();
    assert.equal(a!.action, 'refund.withdraw');
    assert.deepEqual(a!.before, { status: 0, cancelReason: null });
    assert.deepEqual(a!.after, { status: 6, cancelReason: CANCEL_REASON.USER_CANCELLED });
    const final = await post(agent, `/refunds/${claimCode}/withdraw`);
    assert.equal(final.statusCode, 409);
    assert.match(final.json().error, /final \(status 6\)/);
    assert.equal((await post(agent, '/refunds/0000000000/withdraw')).statusCode, 404);
  });

  test('retry: a refund still at 0 gets its submission due now (audited); at the airline, its poll only when none is still to run', async () => {
    const r = await call(t.app, '/refund.do', { airlinePNR: 'DEMO26', carrier: 'XS', refundRequestList: [{ lastName: 'ELSEWHERE', firstName: 'ELLIS', refundReason: '1', segments: [seg('XS101-out')] }] }, { client: DEMO });
    assert.equal(r.body.status, 0, String(r.body.msg));
    const code = String(r.body.refundCode);
    const agent = await login('aga.agent');
    const ok = await post(agent, `/refunds/${code}/retry`);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { queued: true, step: 'submission' });
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', `refund:${code}`).where('action', '=', 'refund.retry').execute();
    assert.equal(a!.operator_login, 'aga.agent');
    assert.deepEqual(a!.after, { status: 0, submissionQueued: true });
    // decision 0035: the retry makes the submission due now, its failed attempts forgotten.
    const due = await t.store.db.selectFrom('refund_orders').select(['next_poll_at', 'poll_failures']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    assert.ok(due.next_poll_at !== null && new Date(due.next_poll_at).getTime() <= t.clock.now().getTime());
    assert.equal(due.poll_failures, 0);
    // At the airline (1) with nobody looking (put there by hand; this app runs no workers): the retry makes its look due.
    await t.store.db.updateTable('refund_orders').set({ status: 1, next_poll_at: null }).where('refund_code', '=', code).execute();
    assert.deepEqual((await get(agent, `/refunds/${code}`)).json().refund.actions.retry, { allowed: true });
    const polled = await post(agent, `/refunds/${code}/retry`);
    assert.equal(polled.statusCode, 200, polled.body);
    assert.deepEqual(polled.json(), { queued: true, step: 'poll' });
    // That poll job waits: a second retry is refused and changes nothing.
    const refused = await post(agent, `/refunds/${code}/retry`);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error, /^cannot retry: its status poll is waiting \(due /);
    assert.equal((await t.store.db.selectFrom('audit_log').select('id').where('target', '=', `refund:${code}`).where('action', '=', 'refund.retry').execute()).length, 2);
  });

  test('redeliver a webhook event: an undelivered one is due again now (audited); a delivered one is refused', async () => {
    assert.equal((await call(t.app, '/updateWebhookURL.do', { url: 'http://127.0.0.1:9/hooks' }, { client: DEMO })).body.status, 0);
    // A refund of DEMO20 was written before; a history row of it now writes an event to the outbox (the trigger).
    const code = (await t.store.db.selectFrom('refund_orders').select('refund_code').where('client_id', '=', 'demo-agency').where('status', '=', 0).executeTakeFirstOrThrow()).refund_code;
    await t.store.db.insertInto('refund_status_history').values({ refund_code: code, from_status: 0, to_status: 0, at: new Date(), cause: 'test: an event for the outbox' }).execute();
    const ev = await t.store.db.selectFrom('webhook_events').select(['id', 'state']).where('subject', '=', code).orderBy('id', 'desc').executeTakeFirstOrThrow();
    await t.store.db.updateTable('webhook_events').set({ state: 'failed', attempts: 12, last_error: 'connect ECONNREFUSED' }).where('id', '=', ev.id).execute();
    const agent = await login('aga.agent');
    const detail = (await get(agent, `/refunds/${code}`)).json().refund;
    assert.ok(detail.webhooks.some((w: { id: number; state: string }) => w.id === Number(ev.id) && w.state === 'failed'));
    const ok = await post(agent, `/webhooks/${ev.id}/redeliver`);
    assert.equal(ok.statusCode, 200, ok.body);
    const after = await t.store.db.selectFrom('webhook_events').select(['state']).where('id', '=', ev.id).executeTakeFirstOrThrow();
    assert.equal(after.state, 'pending');
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('action', '=', 'webhook.redeliver').execute();
    assert.deepEqual(a!.before, { eventId: Number(ev.id), state: 'failed', attempts: 12 });
    await t.store.db.updateTable('webhook_events').set({ state: 'delivered' }).where('id', '=', ev.id).execute();
    const refused = await post(agent, `/webhooks/${ev.id}/redeliver`);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error, /delivered already/);
  });

  test('seat maps: a live session\'s segment as seatAvailability.do serves it, and sandbox flights with their decks', async () => {
    const f = t.world.flights.get('XS111-narrow')!;
    const out = { carrier: f.carrier, flightNumber: f.flightNumber.slice(f.carrier.length), departureAirport: f.from, arrivalAirport: f.to, departureDate: f.current.dep.toFormat('yyyyMMdd') };
    const v = await call(t.app, '/verify.do', { outboundSegments: [out] }, { client: DEMO });
    assert.equal(v.body.status, 0, String(v.body.msg));
    const sessionId = String(v.body.sessionId);
    const viewer = await login('vera.viewer');
    const sources = (await get(viewer, '/seatmaps/sources')).json();
    assert.ok(sources.sessions.some((x: { id: string; clientId: string }) => x.id === sessionId && x.clientId === 'demo-agency'));
    assert.ok(sources.flights.some((x: { id: string }) => x.id === 'XS951-upper'));

    const map = (await get(viewer, `/seatmaps?session=${sessionId}&segment=1`)).json();
    const wire = await call(t.app, '/seatAvailability.do', { sessionId, carrier: 'XS', outboundSegments: [{ segmentIndex: 1, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.current.dep.toFormat('yyyyMMddHHmm') }] }, { client: DEMO });
    assert.equal(wire.body.status, 0, String(wire.body.msg));
    // The same seats, free or occupied, with the same prices, as the client's answer.
    const fromWire = (wire.body as any).cabins.flatMap((c: any) => c.cabin.rows.flatMap((r: any) => r.seats.map((x: any) => `${r.number}${x.column}:${x.seatStatus}:${Number(x.price).toFixed(2)}`))).sort();
    const fromConsole = map.cabins.flatMap((c: any) => c.seatRows.flatMap((r: any) => r.seats.map((x: any) => `${r.number}${x.column}:${x.occupied ? 'O' : 'F'}:${(x.priceMinor / 100).toFixed(2)}`))).sort();
    assert.deepEqual(fromConsole, fromWire);
    assert.ok(fromConsole.some((x: string) => x.includes(':O:')) && fromConsole.some((x: string) => x.includes(':F:')), 'free and occupied seats');

    const upper = (await get(viewer, '/seatmaps?flight=XS951-upper')).json();
    assert.ok(Array.isArray(upper.cabins), JSON.stringify(upper).slice(0, 300));
    assert.deepEqual([...new Set(upper.cabins.map((c: { deck: string }) => c.deck))].sort(), ['Main', 'Upper']);
    const failed = await get(viewer, '/seatmaps?flight=XS921-seatfail');
    assert.equal(failed.statusCode, 409);
    assert.equal((await get(viewer, '/seatmaps?flight=nope')).statusCode, 404);
    assert.equal((await get(viewer, '/seatmaps')).statusCode, 409);
  });

  test('queue: refunds and voids together, filtered and sorted by the service, counts per status, SLA badges from the sandbox clock', async () => {
    const viewer = await login('vera.viewer');
    const all = (await get(viewer, '/queue')).json();
    assert.ok(all.items.length >= 3);
    assert.equal(all.total, all.items.length);
    const refundCount = Object.values(all.counts.refund as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.equal(refundCount, all.items.filter((i: { kind: string }) => i.kind === 'refund').length);
    const withdrawn = (await get(viewer, '/queue?status=6')).json();
    assert.ok(withdrawn.items.length >= 1 && withdrawn.items.every((i: { status: number }) => i.status === 6));
    assert.deepEqual(withdrawn.counts, all.counts, 'counts are per status whatever the status filter');
    const byPayment = (await get(viewer, '/queue?payment=virtualCard')).json();
    assert.ok(byPayment.items.length >= 1 && byPayment.items.every((i: { paymentMethod: string }) => i.paymentMethod === 'virtualCard'));
    assert.equal((await get(viewer, '/queue?airline=ZZ')).json().items.length, 0);
    assert.equal((await get(viewer, '/queue?client=other-agency')).json().items.length, 0);
    // Sort by amount: the amount shown (the actual refund once known, else the estimate), per currency (minor
    // units of two currencies are not comparable): currencies A to Z, amounts in the chosen order within each (a
    // review: it compared the estimates' minor units across currencies). One refund's actual amount made the
    // largest, another's currency AED for the check; both put back after.
    type Shown = { kind: string; code: string; currency: string; amountMinor: number; actualMinor: number | null };
    const refunds = ((await get(viewer, '/queue?kind=refund&limit=200')).json().items as Shown[]).sort((a, b) => a.amountMinor - b.amountMinor);
    assert.ok(refunds.length >= 3);
    const [smallest, other] = [refunds[0]!, refunds[refunds.length - 1]!];
    const kept = await t.store.db.selectFrom('refund_orders').select(['refund_code', 'currency', 'actual_refund_minor']).where('refund_code', 'in', [smallest.code, other.code]).execute();
    const largest = Math.max(...refunds.map((r) => r.actualMinor ?? r.amountMinor)) + 1;
    await t.store.db.updateTable('refund_orders').set({ actual_refund_minor: largest }).where('refund_code', '=', smallest.code).execute();
    await t.store.db.updateTable('refund_orders').set({ currency: 'AED' }).where('refund_code', '=', other.code).execute();
    const shown = (i: Shown) => i.actualMinor ?? i.amountMinor;
    const inOrder = (items: Shown[], dir: 1 | -1) =>
      items.every((i, n) => n === 0 || items[n - 1]!.currency < i.currency || (items[n - 1]!.currency === i.currency && dir * (shown(i) - shown(items[n - 1]!)) >= 0));
    for (const dir of ['asc', 'desc'] as const) {
      const items = (await get(viewer, `/queue?sort=amount&dir=${dir}&limit=200`)).json().items as Shown[];
      assert.ok(inOrder(items, dir === 'asc' ? 1 : -1), `${dir}: ${JSON.stringify(items.map((i) => `${i.currency} ${shown(i)}`))}`);
      assert.equal(items[0]!.code, other.code, 'AED before EUR whatever the direction');
      const eur = items.filter((i) => i.currency !== 'AED' && i.kind === 'refund');
      assert.equal((dir === 'asc' ? eur[eur.length - 1] : eur[0])!.code, smallest.code, 'the actual amount decides, not the estimate');
      // paged one row at a time by the cursor: the same order
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(viewer, `/queue?sort=amount&dir=${dir}&limit=1${cursor ? `&after=${cursor}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        paged.push(...(res.json().items as Shown[]).map((i) => i.code));
        cursor = res.json().next;
      } while (cursor !== null);
      assert.deepEqual(paged, items.map((i) => i.code));
    }
    for (const k of kept) await t.store.db.updateTable('refund_orders').set({ currency: k.currency, actual_refund_minor: k.actual_refund_minor }).where('refund_code', '=', k.refund_code).execute();
    assert.equal((await get(viewer, '/queue?status=9')).statusCode, 400);
    assert.equal((await get(viewer, '/queue?sort=name')).statusCode, 400);
    // Pages follow keyset cursors (the last row's sort value, kind and code), not offsets (a review): a cursor of
    // another sort, or none the queue made, is refused with what to do.
    assert.equal((await get(viewer, '/queue?offset=50')).statusCode, 400);
    const first = (await get(viewer, '/queue?limit=1')).json();
    assert.equal(first.prev, null);
    assert.equal(typeof first.next, 'string');
    const wrongSort = await get(viewer, `/queue?limit=1&sort=amount&after=${String(first.next)}`);
    assert.equal(wrongSort.statusCode, 400);
    assert.match(wrongSort.json().error, /a cursor of the sort by created, not by amount: page from the first page again/);
    assert.equal((await get(viewer, '/queue?after=bm9wZQ')).statusCode, 400);
    assert.equal((await get(viewer, `/queue?after=${String(first.next)}&before=${String(first.next)}`)).statusCode, 400);

    // Sorted by updated, oldest first, one row a page: the first page's row updated before the next page is
    // asked. An offset skipped the row that moved up into its place; the cursor shows every row not yet seen
    // once, and the updated row again at its new place (last).
    const everyCode = (page: { items: Array<{ kind: string; code: string }> }) => page.items.map((i) => `${i.kind}:${i.code}`);
    const whole = everyCode((await get(viewer, '/queue?sort=updated&dir=asc&limit=200')).json());
    assert.ok(whole.length >= 3);
    const page1 = (await get(viewer, '/queue?sort=updated&dir=asc&limit=1')).json();
    assert.deepEqual(everyCode(page1), whole.slice(0, 1));
    const [moved] = page1.items as Array<{ kind: string; code: string }>;
    const table = moved!.kind === 'refund' ? 'refund_orders' : 'void_orders';
    const codeColumn = moved!.kind === 'refund' ? 'refund_code' : 'void_code';
    await sql`update ${sql.table(table)} set updated_at = ${new Date(t.clock.now().getTime() + 3_600_000)}::timestamptz where ${sql.ref(codeColumn)} = ${moved!.code}`.execute(t.store.db);
    const seen: string[] = [];
    let cursor: string | null = page1.next;
    while (cursor !== null) {
      const res = await get(viewer, `/queue?sort=updated&dir=asc&limit=1&after=${cursor}`);
      assert.equal(res.statusCode, 200, res.body);
      seen.push(...everyCode(res.json()));
      cursor = res.json().next;
    }
    assert.deepEqual(seen, [...whole.slice(1), `${moved!.kind}:${moved!.code}`], 'every row not yet seen once, in order; the updated one at its new place');
    // Previous: the rows before the page's first row, read backwards from it (the updated row is now last).
    const page2 = (await get(viewer, `/queue?sort=updated&dir=asc&limit=1&after=${String(page1.next)}`)).json();
    const page3 = (await get(viewer, `/queue?sort=updated&dir=asc&limit=1&after=${String(page2.next)}`)).json();
    assert.deepEqual(everyCode(page3), [whole[2]]);
    const back = (await get(viewer, `/queue?sort=updated&dir=asc&limit=1&before=${String(page3.prev)}`)).json();
    assert.deepEqual([everyCode(back), back.prev, back.next], [[whole[1]], null, page2.next]);

    // A void, marked as one.
    const vq = await call(t.app, '/voidQuotation.do', { airlinePNR: 'DEMO27', carrier: 'XS' }, { client: DEMO });
    if (vq.body.status === 0) {
      const v = await call(t.app, '/void.do', { airlinePNR: 'DEMO27', carrier: 'XS', voidOfferId: vq.body.voidOfferId }, { client: DEMO });
      assert.equal(v.body.status, 0, String(v.body.msg));
      const voids = (await get(viewer, '/queue?kind=void')).json();
      assert.ok(voids.items.some((i: { kind: string; code: string; reason: string }) => i.kind === 'void' && i.code === v.body.voidCode && i.reason === '4'));
      const detail = (await get(viewer, `/voids/${String(v.body.voidCode)}`)).json().void;
      assert.equal(detail.voidCode, v.body.voidCode);
      // decision 0045: its submission due at once, no failed call yet
      assert.ok(Date.parse(detail.nextCall.due) <= t.clock.now().getTime(), JSON.stringify(detail.nextCall));
      assert.deepEqual({ ...detail.nextCall, due: null }, { due: null, failedAttempts: 0, lastError: null });
    } else assert.fail(`DEMO27 void quote: ${String(vq.body.status)} ${String(vq.body.msg)}`);

    // Nothing late yet; 20 minutes on, the refunds at 0 are "not yet submitted"; 30 days on, past their dates too.
    assert.equal((await get(viewer, '/queue?late=1')).json().items.length, 0);
    t.clock.advance(20 * 60_000);
    const late = (await get(viewer, '/queue?late=1&kind=refund')).json();
    assert.ok(late.items.length >= 1 && late.items.every((i: { sla: string[]; status: number }) => i.status === 0 && i.sla.includes('not-submitted')));
    t.clock.advance(30 * 86_400_000);
    const later = (await get(viewer, '/queue?late=1&kind=refund&status=0')).json();
    assert.ok(later.items.every((i: { sla: string[] }) => i.sla.includes('confirmation-late') && i.sla.includes('refund-late')));
    // voids too, from their quote's dates (found by a review: never flagged)
    const lateVoids = (await get(viewer, '/queue?late=1&kind=void&status=0')).json().items as Array<{ sla: string[]; expectedConfirmationDate: string | null }>;
    assert.ok(lateVoids.length >= 1 && lateVoids.every((i) => i.sla.includes('confirmation-late') && i.sla.includes('refund-late') && /^\d{8}$/.test(String(i.expectedConfirmationDate))), JSON.stringify(lateVoids));
    assert.ok((await get(viewer, '/queue?minAgeHours=24')).json().items.length >= 1);

    // The filter menus: the airlines and clients with refunds or voids (read from the kept counts and the clients,
    // not a scan of every order: a review), every payment method
    const facets = (await get(viewer, '/meta')).json().facets as { airlines: string[]; clients: string[]; payments: string[] };
    const items = (await get(viewer, '/queue?limit=200')).json().items as Array<{ carrier: string; clientId: string }>;
    assert.deepEqual(facets.airlines, [...new Set(items.map((i) => i.carrier))].sort());
    assert.deepEqual(facets.clients, [...new Set(items.map((i) => i.clientId))].sort());
    assert.ok(!facets.clients.includes('other-agency'), 'a client without refunds or voids is not offered');
    assert.deepEqual(facets.payments, ['deposit', 'merchant', 'ownAccount', 'virtualCard']);
  });

  test('clients (admin): create shows the secret once and it works; rotate keeps the old one for the grace period; disable refuses calls; all audited without secrets', async () => {
    const agent = await login('aga.agent');
    assert.equal((await get(agent, '/clients')).statusCode, 403);
    assert.equal((await post(agent, '/clients', { clientId: 'new-agency', name: 'New' })).statusCode, 403);
    const admin = await login('ada.admin');
    const created = await post(admin, '/clients', { clientId: 'new-agency', name: 'New Agency' });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.headers['cache-control'], 'no-store');
    const secret1 = created.json().secret as string;
    const asClient = (secret: string) => call(t.app, '/queryRefundOrders.do', { refundCode: '1' }, { client: { id: 'new-agency', secret } });
    assert.notEqual((await asClient(secret1)).http, 401);
    assert.equal((await post(admin, '/clients', { clientId: 'new-agency', name: 'Again' })).statusCode, 409);
    assert.equal((await post(admin, '/clients', { clientId: 'x', name: 'Short' })).statusCode, 409);
    const listed = (await get(admin, '/clients')).json().clients.find((c: { clientId: string }) => c.clientId === 'new-agency');
    assert.deepEqual([listed.name, listed.status, listed.previousSecretExpiresAt], ['New Agency', 'active', null]);
    assert.ok(!JSON.stringify((await get(admin, '/clients')).json()).includes('scrypt'), 'no hash is listed');

    const rotated = await post(admin, '/clients/new-agency/rotate', { graceHours: 1 });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const secret2 = rotated.json().secret as string;
    assert.notEqual(secret2, secret1);
    assert.notEqual((await asClient(secret1)).http, 401, 'the old secret works during the grace period');
    assert.notEqual((await asClient(secret2)).http, 401);
    // a second rotation with a grace inside the first one's: 409, the old secret still working (found by a review)
    const again = await post(admin, '/clients/new-agency/rotate', { graceHours: 1 });
    assert.equal(again.statusCode, 409);
    assert.match(again.json().error, /grace period runs until .*grace of 0 hours/);
    assert.notEqual((await asClient(secret1)).http, 401);
    t.clock.advance(61 * 60_000);
    assert.equal((await asClient(secret1)).http, 401, 'the old secret stops after the grace period');
    assert.notEqual((await asClient(secret2)).http, 401);
    assert.equal((await post(admin, '/clients/nobody/rotate', { graceHours: 1 })).statusCode, 404);
    assert.equal((await post(admin, '/clients/new-agency/rotate', { graceHours: -1 })).statusCode, 400);

    assert.equal((await post(admin, '/clients/new-agency/disable')).statusCode, 200);
    assert.equal((await asClient(secret2)).http, 401, 'a disabled client is refused at once');
    assert.equal((await post(admin, '/clients/new-agency/disable')).statusCode, 409);
    assert.equal((await post(admin, '/clients/new-agency/enable')).statusCode, 200);
    assert.notEqual((await asClient(secret2)).http, 401);

    // Settings: the refund fee, criteria, rate pools and look-to-book; a bad fee or an unknown key is refused.
    const settings = { refundServiceFee: 'EUR 7.50', minMinutesBeforeDeparture: null, ancillaryPerMinute: null, verifyPerMinute: null, pnrPerMinute: 1, searchPerSecond: 4, lookToBook: { maxRatio: 50, minRequests: 10 } };
    assert.equal((await post(agent, '/clients/new-agency/settings', settings)).statusCode, 403);
    assert.equal((await post(admin, '/clients/new-agency/settings', { ...settings, refundServiceFee: 'five euros' })).statusCode, 409);
    assert.equal((await post(admin, '/clients/new-agency/settings', { ...settings, colour: 'red' })).statusCode, 400);
    const saved = await post(admin, '/clients/new-agency/settings', settings);
    assert.equal(saved.statusCode, 200, saved.body);
    assert.deepEqual(saved.json().settings, { refundServiceFee: 'EUR 7.50', rateLimits: { pnrPerMinute: 1, searchPerSecond: 4 }, lookToBook: { maxRatio: 50, minRequests: 10 } });
    // In force at once in this process: the PNR pool now allows one request a minute (spec 8: 429).
    const extract = () => call(t.app, '/extractPnr.do', { airlinePnr: 'DEMO20', carrier: 'XS', passengers: [{ lastName: 'REFUND', firstName: 'RUI' }], contact: { email: 'rui.refund@example.com' }, routing: { fromSegments: [] } }, { client: { id: 'new-agency', secret: secret2 } });
    const first = await extract();
    assert.notEqual(first.body.status, 429, JSON.stringify(first.body));
    assert.notEqual(first.body.status, 100, JSON.stringify(first.body));
    assert.equal((await extract()).body.status, 429);

    const audit = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', 'client:new-agency').orderBy('id').execute();
    assert.deepEqual(audit.map((a) => a.action), ['client.create', 'client.rotate', 'client.disable', 'client.enable', 'client.settings']);
    assert.deepEqual(audit[4]!.before, {});
    const text = JSON.stringify(audit);
    assert.ok(!text.includes(secret1) && !text.includes(secret2), 'no secret in the audit log');
    assert.deepEqual(audit[2]!.before, { status: 'active' });
    assert.deepEqual(audit[2]!.after, { status: 'disabled' });
  });

  test('client settings: a number the form cannot read is refused, never sent as null (which removes the setting); the API refuses a string, a fraction or out of range naming the field, the setting kept', async () => {
    const admin = await login('ada.admin');
    assert.equal((await post(admin, '/clients', { clientId: 'typo-agency', name: 'Typo Agency' })).statusCode, 200);
    const form = { refundServiceFee: '', minMinutesBeforeDeparture: '840', ancillaryPerMinute: '', verifyPerMinute: '', pnrPerMinute: ' 30 ', searchPerSecond: '', maxRatio: '', minRequests: '' };
    const good = settingsEdit(form);
    assert.ok(good.body, good.error ?? '');
    const saved = await post(admin, '/clients/typo-agency/settings', good.body);
    assert.equal(saved.statusCode, 200, saved.body);
    const kept = { refundCriteria: { minMinutesBeforeDeparture: 840 }, rateLimits: { pnrPerMinute: 30 } };
    assert.deepEqual(saved.json().settings, kept);

    // '14 h' typed for 14 hours: Number() gave NaN, JSON sent null, and null removed the 840-minute criterion.
    for (const typo of ['14 h', '14.5', '-1', '1e3', '525601']) {
      const read = settingsEdit({ ...form, minMinutesBeforeDeparture: typo });
      assert.equal(read.body, null, `the form sends nothing for ${typo}`);
      assert.match(read.error ?? '', /^Voluntary refunds need minutes before departure: a whole number from 0 to 525600/);
    }
    assert.match(settingsEdit({ ...form, pnrPerMinute: '0' }).error ?? '', /^PNR pool per minute: a whole number from 1/);
    assert.match(settingsEdit({ ...form, maxRatio: 'ten' }).error ?? '', /^Look-to-book: max seat requests per paid order: a number/);
    assert.match(settingsEdit({ ...form, minRequests: '5' }).error ?? '', /give the max ratio too/);
    assert.deepEqual(settingsEdit({ ...form, maxRatio: '2.5' }).body?.lookToBook, { maxRatio: 2.5, minRequests: 0 });

    const valid = good.body;
    for (const [field, value] of [['minMinutesBeforeDeparture', '14 h'], ['minMinutesBeforeDeparture', 14.5], ['minMinutesBeforeDeparture', -1], ['pnrPerMinute', '30'], ['pnrPerMinute', 0]] as const) {
      const res = await post(admin, '/clients/typo-agency/settings', Object.assign({}, valid, { [field]: value }));
      assert.equal(res.statusCode, 400, `${field}: ${JSON.stringify(value)}`);
      assert.match(res.json().error, new RegExp(`/${field} `), 'the refusal names the field');
    }
    const listed = (await get(admin, '/clients')).json().clients.find((c: { clientId: string }) => c.clientId === 'typo-agency');
    assert.deepEqual(listed.settings, kept, 'every refused edit left the settings as they were');
    // An empty field still removes its setting, as the hint says.
    const cleared = await post(admin, '/clients/typo-agency/settings', settingsEdit({ ...form, minMinutesBeforeDeparture: '' }).body);
    assert.deepEqual(cleared.json().settings, { rateLimits: { pnrPerMinute: 30 } });
  });

  test('client settings: an edit made on settings that changed since the form was opened (another admin, a world reload) is refused 409, nothing written; without settingsVersion it is written as before (found by a review: the form sent every key of the values it opened with)', async () => {
    const admin = await login('ada.admin');
    const other = await login('ada.admin');
    assert.equal((await post(admin, '/clients', { clientId: 'race-agency', name: 'Race Agency' })).statusCode, 200);
    const listed = async () => (await get(admin, '/clients')).json().clients.find((c: { clientId: string }) => c.clientId === 'race-agency') as { settings: object; settingsVersion: string };
    const opened = await listed();
    const edit = { refundServiceFee: null, minMinutesBeforeDeparture: null, ancillaryPerMinute: null, verifyPerMinute: null, pnrPerMinute: null, searchPerSecond: null, lookToBook: null };
    // the other admin sets a criterion meanwhile
    const theirs = await post(other, '/clients/race-agency/settings', Object.assign({}, edit, { minMinutesBeforeDeparture: 840, settingsVersion: opened.settingsVersion }));
    assert.equal(theirs.statusCode, 200, theirs.body);
    const now = await listed();
    assert.notEqual(now.settingsVersion, opened.settingsVersion);
    // this form, opened before, sends the fee and (from its old values) no criterion: refused, the criterion kept
    const mine = await post(admin, '/clients/race-agency/settings', Object.assign({}, edit, { refundServiceFee: 'EUR 5.00', settingsVersion: opened.settingsVersion }));
    assert.equal(mine.statusCode, 409, mine.body);
    assert.match(mine.json().error, /^the settings of race-agency changed since the form was opened .*nothing was saved: reload them/);
    assert.deepEqual((await listed()).settings, { refundCriteria: { minMinutesBeforeDeparture: 840 } });
    const audited = await t.store.db.selectFrom('audit_log').select('action').where('target', '=', 'client:race-agency').where('action', '=', 'client.settings').execute();
    assert.equal(audited.length, 1, 'the refused edit is not audited');
    // reloaded: the form's edit on the current settings is written
    const again = await post(admin, '/clients/race-agency/settings', Object.assign({}, edit, { refundServiceFee: 'EUR 5.00', minMinutesBeforeDeparture: 840, settingsVersion: now.settingsVersion }));
    assert.equal(again.statusCode, 200, again.body);
    // a rotation is no settings change: the version stays
    const v = (await listed()).settingsVersion;
    assert.equal((await post(admin, '/clients/race-agency/rotate', { graceHours: 0 })).statusCode, 200);
    assert.equal((await listed()).settingsVersion, v);
    // a caller without settingsVersion writes as before (last write wins)
    assert.equal((await post(admin, '/clients/race-agency/settings', edit)).statusCode, 200);
    assert.deepEqual((await listed()).settings, {});
  });

  test('clients: live pool usage (used/limit in the window) and look-to-book ratio, read without consuming from the pools', async () => {
    const admin = await login('ada.admin');
    assert.equal((await get(await login('aga.agent'), '/clients/usage')).statusCode, 403);
    const secret = (await post(admin, '/clients', { clientId: 'usage-agency', name: 'Usage Agency' })).json().secret as string;
    const client = { id: 'usage-agency', secret };
    const limits = { refundServiceFee: null, minMinutesBeforeDeparture: null, ancillaryPerMinute: 5, verifyPerMinute: null, pnrPerMinute: 2, lookToBook: { maxRatio: 2, minRequests: 1 } };
    assert.equal((await post(admin, '/clients/usage-agency/settings', limits)).statusCode, 200);
    const usageOf = async () => {
      const res = await get(admin, '/clients/usage');
      assert.equal(res.statusCode, 200, res.body);
      return res.json().clients.find((c: { clientId: string }) => c.clientId === 'usage-agency');
    };
    const pools = (u: { pools: Array<{ pool: string; used: number; limit: number }> }) => Object.fromEntries(u.pools.map((p) => [p.pool, `${p.used}/${p.limit}`]));
    const fresh = await usageOf();
    assert.deepEqual(pools(fresh), { ancillary: '0/5', verify: '0/60', pnr: '0/2', search: '0/10' });
    assert.deepEqual(fresh.lookToBook, { seatRequests: 0, paidOrders: 0, ratio: 0, setting: { maxRatio: 2, minRequests: 1 }, exceeded: false });

    // spec 8: the PNR pool of 2 a minute; the console's reads in between take nothing from it.
    const extract = () => call(t.app, '/extractPnr.do', { airlinePnr: 'DEMO20', carrier: 'XS', passengers: [{ lastName: 'REFUND', firstName: 'RUI' }], contact: { email: 'rui.refund@example.com' }, routing: { fromSegments: [] } }, { client });
    assert.notEqual((await extract()).body.status, 429);
    for (let i = 0; i < 5; i++) assert.equal(pools(await usageOf()).pnr, '1/2');
    assert.notEqual((await extract()).body.status, 429);
    assert.equal(pools(await usageOf()).pnr, '2/2');
    assert.equal((await extract()).body.status, 429, 'the pool is full');
    assert.equal(pools(await usageOf()).pnr, '2/2', 'a refused request is not counted');

    // Look-to-book (spec 7.2: 223): three seat requests, no paid order, ratio 3 > 2. A daily flight still to leave by
    // the sandbox clock, which earlier tests moved a month on (a flight that has left is not sold).
    const later = t.clock.now().getTime() + 86_400_000;
    const f = [...t.world.flights.values()].find((x) => x.id.startsWith('XS771-daily') && x.current.dep.toMillis() > later)!;
    const v = await call(t.app, '/verify.do', { outboundSegments: [{ carrier: f.carrier, flightNumber: f.flightNumber.slice(f.carrier.length), departureAirport: f.from, arrivalAirport: f.to, departureDate: f.current.dep.toFormat('yyyyMMdd') }] }, { client });
    assert.equal(v.body.status, 0, String(v.body.msg));
    const seats = () => call(t.app, '/seatAvailability.do', { sessionId: v.body.sessionId, carrier: 'XS', outboundSegments: [{ segmentIndex: 1, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.current.dep.toFormat('yyyyMMddHHmm') }] }, { client });
    for (let i = 0; i < 3; i++) assert.equal((await seats()).body.status, 0);
    const after = await usageOf();
    assert.deepEqual(pools(after), { ancillary: '3/5', verify: '1/60', pnr: '2/2', search: '0/10' });
    assert.deepEqual(after.lookToBook, { seatRequests: 3, paidOrders: 0, ratio: 3, setting: { maxRatio: 2, minRequests: 1 }, exceeded: true });
    assert.equal((await seats()).body.status, 223, 'the next seat request is refused, as the page says');
    assert.equal(pools(await usageOf()).ancillary, '4/5');
    // Every client is listed, with the defaults where it has no limits of its own.
    const all = (await get(admin, '/clients/usage')).json().clients;
    assert.deepEqual(pools(all.find((c: { clientId: string }) => c.clientId === 'other-agency')), { ancillary: '0/60', verify: '0/60', pnr: '0/120', search: '0/10' });
  });

  test('clients: webhook URL set from the console (admin), the signing secret answered once and never audited; bad URLs refused', async () => {
    const admin = await login('ada.admin');
    const agent = await login('aga.agent');
    await post(admin, '/clients', { clientId: 'hook-agency', name: 'Hook Agency' });
    assert.equal((await post(agent, '/clients/hook-agency/webhook', { url: 'https://hooks.example.com/pb' })).statusCode, 403);
    const first = await post(admin, '/clients/hook-agency/webhook', { url: 'https://hooks.example.com/pb' });
    assert.equal(first.statusCode, 200, first.body);
    const secret1 = first.json().secret as string;
    assert.match(secret1, /.{20,}/);
    const listed = async () => (await get(admin, '/clients')).json().clients.find((c: { clientId: string }) => c.clientId === 'hook-agency');
    assert.equal((await listed()).webhookUrl, 'https://hooks.example.com/pb');
    // A new URL keeps the secret (not shown again); a new secret on request.
    const second = await post(admin, '/clients/hook-agency/webhook', { url: 'https://hooks.example.com/v2' });
    assert.equal(second.json().secret, null);
    const rotated = await post(admin, '/clients/hook-agency/webhook', { url: 'https://hooks.example.com/v2', rotateSecret: true });
    const secret2 = rotated.json().secret as string;
    assert.ok(secret2 && secret2 !== secret1);
    // The same rules as updateWebhookURL.do (docs/webhooks.md): refused with the rule, nothing changes.
    for (const url of ['ftp://hooks.example.com/x', 'https://user:pw@hooks.example.com/', 'not a url', '']) {
      const bad = await post(admin, '/clients/hook-agency/webhook', { url });
      assert.equal(bad.statusCode, 409, url);
      assert.match(bad.json().error, /webhook URL/);
    }
    assert.equal((await post(admin, '/clients/hook-agency/webhook', { url: 'https://x.example.com/', colour: 1 })).statusCode, 400);
    assert.equal((await post(admin, '/clients/nobody/webhook', { url: 'https://x.example.com/' })).statusCode, 404);
    assert.equal((await listed()).webhookUrl, 'https://hooks.example.com/v2');
    const removed = await post(admin, '/clients/hook-agency/webhook', { url: null });
    assert.equal(removed.statusCode, 200);
    assert.equal((await listed()).webhookUrl, null);
    assert.equal((await post(admin, '/clients/hook-agency/webhook', { url: null, rotateSecret: true })).statusCode, 409);

    const audit = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', 'client:hook-agency').where('action', '=', 'client.webhook').orderBy('id').execute();
    assert.equal(audit.length, 4);
    assert.deepEqual(audit[0]!.before, { webhookUrl: null, hasSecret: false });
    assert.deepEqual(audit[0]!.after, { webhookUrl: 'https://hooks.example.com/pb', hasSecret: true, secretMade: true });
    assert.deepEqual(audit[2]!.after, { webhookUrl: 'https://hooks.example.com/v2', hasSecret: true, secretMade: true });
    assert.equal(audit[0]!.operator_login, 'ada.admin');
    const text = JSON.stringify(audit);
    assert.ok(!text.includes(secret1) && !text.includes(secret2), 'no signing secret in the audit log');
  });

  test('sandbox panel: everybody reads the shared sandbox clock, admins move it forward (audited)', async () => {
    const viewer = await login('vera.viewer');
    const before = (await get(viewer, '/sandbox/clock')).json();
    assert.equal(typeof before.offsetMs, 'number');
    assert.equal((await post(viewer, '/sandbox/clock', { advanceMinutes: 60 })).statusCode, 403);
    const admin = await login('ada.admin');
    assert.equal((await post(admin, '/sandbox/clock', { advanceMinutes: 0 })).statusCode, 400);
    const moved = await post(admin, '/sandbox/clock', { advanceMinutes: 90 });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.ok(moved.json().offsetMs >= before.offsetMs + 90 * 60_000);
    assert.ok(t.clock.now().getTime() >= new Date(before.now).getTime() + 90 * 60_000, 'the service clock moved');
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('action', '=', 'sandbox.clock').execute();
    assert.equal(a!.operator_login, 'ada.admin');
    // before: the time just before the move (the sandbox clock flows with real time); after: 90 minutes later.
    const b = a!.before as { now: string };
    const af = a!.after as { now: string; advanceMinutes: number };
    assert.equal(af.advanceMinutes, 90);
    assert.ok(new Date(af.now).getTime() - new Date(b.now).getTime() >= 90 * 60_000);
  });

  test('charts: status changes per day over the window, time to refund per airline', async () => {
    const viewer = await login('vera.viewer');
    const c = (await get(viewer, '/charts?days=90')).json();
    assert.equal(c.perDay.length, 90);
    const created = await t.store.db.selectFrom('refund_status_history').select(({ fn }) => fn.countAll<number>().as('n')).where('to_status', '=', 0).executeTakeFirstOrThrow();
    const charted = c.perDay.reduce((a: number, d: { byStatus: Record<string, number> }) => a + (d.byStatus['0'] ?? 0), 0);
    assert.equal(charted, Number(created.n));
    // A refund completed 36 hours after its submission, on airline XS.
    const code = (await t.store.db.selectFrom('refund_orders').select(['refund_code', 'created_at']).where('status', '=', 0).executeTakeFirstOrThrow());
    await t.store.db.insertInto('refund_status_history').values({ refund_code: code.refund_code, from_status: 3, to_status: 2, at: new Date(new Date(code.created_at).getTime() + 36 * 3_600_000), cause: 'test' }).execute();
    const after = (await get(viewer, '/charts?days=90')).json();
    assert.deepEqual(after.timeToRefund, [{ carrier: 'XS', count: 1, medianHours: 36, p90Hours: 36 }]);
    // a window of 1 to 90 days; another is refused, not clamped (a review: 0 became 1, 999 became 366)
    for (const days of ['week', '0', '000', '91', '999', '-7', '7.5']) assert.equal((await get(viewer, `/charts?days=${days}`)).statusCode, 400, days);
    assert.equal((await get(viewer, '/charts?days=1')).json().perDay.length, 1);
  });

  test('admin reads the whole audit log; logout ends the session (audited) and clears the cookie', async () => {
    const admin = await login('ada.admin');
    const entries = (await get(admin, '/audit')).json().entries as Array<{ action: string; operator: string }>;
    assert.ok(entries.some((e) => e.action === 'case.approve' && e.operator === 'aga.agent'));
    const out = await post(admin, '/logout');
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /postbook_console=;.*Expires=Thu, 01 Jan 1970/);
    assert.equal((await get(admin, '/session')).statusCode, 401);
    const actions = await t.store.db.selectFrom('audit_log').select('action').where('operator_login', '=', 'ada.admin').orderBy('id').execute();
    assert.equal(actions.at(-1)!.action, 'logout');
  });

  test('cases and the audit log page by key past 200: every row once, in order, the last page says so (found by a review: capped at 200 without paging)', async () => {
    const admin = await login('ada.admin');
    const orderNo = await orderNoOfPnr(t.store.db, 'DEMO31');
    // 450 decided cases of long ago, in groups of 100 at one instant (the key's second column breaks the ties).
    const base = Date.UTC(2020, 0, 1);
    await t.store.db
      .insertInto('console_cases')
      .values(Array.from({ length: 450 }, (_, i) => ({ case_id: `cc_page_${String(i).padStart(3, '0')}`, client_id: 'demo-agency', order_no: orderNo, request: JSON.stringify({}), request_hash: `page${i}`, status: 'approved', created_at: new Date(base + Math.floor(i / 100) * 1000) })))
      .execute();
    await t.store.db
      .insertInto('audit_log')
      .values(Array.from({ length: 450 }, (_, i) => ({ operator_id: 'op_test', operator_login: 'ada.admin', at: new Date(), action: 'test.page', target: 'paging:test', before: null, after: JSON.stringify({ i }) })))
      .execute();

    const seen: Array<{ caseId: string; createdAt: string }> = [];
    const sizes: number[] = [];
    let after: string | null = null;
    do {
      const page = await get(admin, `/cases?status=approved${after ? `&after=${after}` : ''}`);
      assert.equal(page.statusCode, 200, page.body);
      sizes.push(page.json().cases.length);
      seen.push(...(page.json().cases as typeof seen));
      after = page.json().next;
    } while (after !== null && sizes.length < 10);
    const ours = seen.filter((c) => c.caseId.startsWith('cc_page_'));
    assert.equal(new Set(seen.map((c) => c.caseId)).size, seen.length, 'no case twice');
    // decided cases newest first: the last group of the planted ones first, within a group by case id, descending
    assert.deepEqual(ours.map((c) => c.caseId), Array.from({ length: 450 }, (_, i) => `cc_page_${String(449 - i).padStart(3, '0')}`));
    assert.deepEqual(sizes.slice(0, -1).every((n) => n === 200) && sizes.at(-1)! <= 200, true, String(sizes));
    assert.equal((await get(admin, '/cases?status=approved&after=cc_nothing')).statusCode, 400);
    // Times with microseconds (rows written by SQL's own clock, an import): the key is compared in the database,
    // not through a JS Date's milliseconds (found by a review: rows skipped, or shown twice).
    await sql`insert into console_cases (case_id, client_id, order_no, request, request_hash, status, cancel_reason, created_at)
      select 'cc_micro_' || lpad(i::text, 3, '0'), 'demo-agency', ${orderNo}, '{}'::jsonb, 'micro' || i, 'rejected', 'x', timestamptz '2019-01-01T00:00:00Z' + i * interval '333 microseconds'
      from generate_series(0, 249) i`.execute(t.store.db);
    const micro: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n++) {
      const page: { cases: Array<{ caseId: string }>; next: string | null } = (await get(admin, `/cases?status=rejected${cursor ? `&after=${cursor}` : ''}`)).json();
      micro.push(...page.cases.map((c) => c.caseId).filter((id) => id.startsWith('cc_micro_')));
      cursor = page.next;
      if (cursor === null) break;
    }
    assert.deepEqual(micro, Array.from({ length: 250 }, (_, i) => `cc_micro_${String(249 - i).padStart(3, '0')}`));

    const entries: Array<{ id: number; after: { i: number } }> = [];
    let before: number | null = null;
    let pages = 0;
    do {
      const page = await get(admin, `/audit?target=paging:test${before !== null ? `&before=${before}` : ''}`);
      assert.equal(page.statusCode, 200, page.body);
      entries.push(...(page.json().entries as typeof entries));
      before = page.json().next;
      pages++;
    } while (before !== null && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(entries.map((e) => e.after.i), Array.from({ length: 450 }, (_, i) => 449 - i), 'newest first, each once');
    const whole = (await get(admin, '/audit')).json();
    assert.equal(whole.entries.length, 200);
    assert.equal(whole.next, whole.entries[199].id);
    assert.equal((await get(admin, '/audit?before=x')).statusCode, 400);
  });

  test('sessions: an expired session, or one of an operator disabled since, is refused', async () => {
    await createOperator(t.store.db, { login: 'sid.session', password: PASSWORD, role: 'agent' }, new Date());
    const s1 = await login('sid.session');
    assert.equal((await get(s1, '/session')).statusCode, 200);
    const op = await t.store.db.selectFrom('operators').select('operator_id').where('login', '=', 'sid.session').executeTakeFirstOrThrow();
    await t.store.db.updateTable('console_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('operator_id', '=', op.operator_id).execute();
    assert.equal((await get(s1, '/session')).statusCode, 401);
    const s2 = await login('sid.session');
    await t.store.db.updateTable('operators').set({ disabled: true }).where('operator_id', '=', op.operator_id).execute();
    assert.equal((await get(s2, '/session')).statusCode, 401);
  });

  test('operators (admin): add with a password made once, change a role, a new password, disable and enable — audited by the admin; no admin changes their own account; two admins disabling each other leave one', async () => {
    const viewer = await login('vera.viewer');
    assert.equal((await get(viewer, '/operators')).statusCode, 403);
    assert.equal((await post(viewer, '/operators', { login: 'x.viewer', role: 'admin' })).statusCode, 403);
    const admin = await login('ada.admin');
    const listed = (await get(admin, '/operators')).json().operators as Array<{ login: string; role: string; disabled: boolean; you: boolean; lastLoginAt: string | null }>;
    assert.deepEqual(listed.filter((o) => o.you).map((o) => o.login), ['ada.admin']);
    assert.ok(listed.find((o) => o.login === 'dan.disabled')?.disabled);

    const made = await post(admin, '/operators', { login: 'Nia.New', role: 'agent' });
    assert.equal(made.statusCode, 200, made.body);
    const { login: nia, password } = made.json<{ login: string; password: string }>();
    assert.equal(nia, 'nia.new');
    assert.match(password, /^[A-Za-z0-9_-]{24}$/);
    const niaSession = await login('nia.new', password);
    assert.equal((await post(admin, '/operators', { login: 'nia.new', role: 'viewer' })).statusCode, 409, 'taken');
    const bad = await post(admin, '/operators', { login: 'x', role: 'viewer' });
    assert.deepEqual([bad.statusCode, /^login: /.test(bad.json().error)], [400, true]);
    assert.equal((await post(admin, '/operators', { login: 'ok.login', role: 'root' })).statusCode, 400);

    assert.equal((await post(admin, '/operators/nia.new/role', { role: 'viewer' })).json().role, 'viewer');
    assert.equal((await get(niaSession, '/session')).json().operator.role, 'viewer', 'its session acts with the new role');
    assert.equal((await post(admin, '/operators/nia.new/role', { role: 'viewer' })).statusCode, 409, 'viewer already');
    const fresh = await post(admin, '/operators/nia.new/password');
    assert.equal(fresh.statusCode, 200, fresh.body);
    const again = fresh.json().password as string;
    assert.notEqual(again, password);
    assert.equal((await get(niaSession, '/session')).statusCode, 401, 'its sessions ended');
    // (checked without the login route: its failures count against this address for the whole file)
    assert.equal(await verifyLogin(t.store.db, 'nia.new', password, new Date()), null, 'the old password is refused');
    await login('nia.new', again);
    assert.equal((await post(admin, '/operators/nia.new/disable')).json().disabled, true);
    assert.equal(await verifyLogin(t.store.db, 'nia.new', again, new Date()), null, 'a disabled account cannot log in');
    assert.equal((await post(admin, '/operators/nia.new/enable')).json().disabled, false);
    assert.equal((await post(admin, '/operators/nobody.here/disable')).statusCode, 404);
    for (const [url, body] of [['/operators/ada.admin/disable', {}], ['/operators/ADA.Admin/disable', {}], ['/operators/ada.admin/role', { role: 'viewer' }], ['/operators/Ada.Admin/password', {}]] as const) {
      const self = await post(admin, url, body);
      assert.equal(self.statusCode, 409, url);
      assert.match(self.json().error, /your own/);
    }
    const rows = await t.store.db.selectFrom('audit_log').select(['operator_login', 'action', 'after']).where('target', '=', 'operator:nia.new').where('action', 'like', 'operator.%').orderBy('id').execute();
    assert.deepEqual(rows.map((r) => [r.operator_login, r.action]), [['ada.admin', 'operator.create'], ['ada.admin', 'operator.role'], ['ada.admin', 'operator.password'], ['ada.admin', 'operator.disable'], ['ada.admin', 'operator.enable']]);
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(password) && !text.includes(again), 'no password in the audit log');

    // Two admins disabling each other at once: one is disabled, the other stays (the second finds its admin no
    // longer one, 403, or its session ended by the first, 401), never both.
    const ola = (await post(admin, '/operators', { login: 'ola.other', role: 'admin' })).json<{ password: string }>();
    const olaSession = await login('ola.other', ola.password);
    const both = await Promise.all([post(admin, '/operators/ola.other/disable'), post(olaSession, '/operators/ada.admin/disable')]);
    const statuses = both.map((r) => r.statusCode);
    assert.equal(statuses.filter((c) => c === 200).length, 1, JSON.stringify(both.map((r) => [r.statusCode, r.body])));
    assert.ok(statuses.every((c) => c === 200 || c === 401 || c === 403), String(statuses));
    const enabledAdmins = await t.store.db.selectFrom('operators').select('login').where('role', '=', 'admin').where('disabled', '=', false).execute();
    assert.equal(enabledAdmins.length, 1, JSON.stringify(enabledAdmins));
    // put back as it was for the tests after this one
    const survivor = enabledAdmins[0]!.login === 'ada.admin' ? admin : olaSession;
    const other = enabledAdmins[0]!.login === 'ada.admin' ? 'ola.other' : 'ada.admin';
    assert.equal((await post(survivor, `/operators/${other}/enable`)).statusCode, 200);
  });

  test('your own password (any role): the current one checked (a wrong one counted as a failed login), the new one set, every session ended and this one replaced; audited without passwords', async () => {
    await createOperator(t.store.db, { login: 'max.mine', password: PASSWORD, role: 'viewer' }, new Date());
    // from an address of its own: the file's other tests spend the default one's failed-login budget
    const from = { remoteAddress: '10.20.30.40' };
    const loginAs = (password: string) => t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'max.mine', password }, ...from });
    const opened = await loginAs(PASSWORD);
    assert.equal(opened.statusCode, 200, opened.body);
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const elsewhere = String((await loginAs(PASSWORD)).headers['set-cookie']).split(';')[0]!;
    const session = (c: string) => t.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: c } });
    const change = (body: object, csrf: string | null = opened.json().csrfToken as string) =>
      t.app.inject({ method: 'POST', url: '/console/api/me/password', headers: { cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) }, payload: body, ...from });
    const newPassword = PLANTED.secrets[1];
    assert.equal((await change({ currentPassword: PASSWORD, newPassword }, null)).statusCode, 403, 'CSRF token required');
    const failures = async () => (await t.store.db.selectFrom('console_login_failures').select('key_hash').execute()).length;
    const before = await failures();
    const wrong = await change({ currentPassword: 'not-the-password', newPassword });
    assert.deepEqual([wrong.statusCode, wrong.json().error], [403, 'the current password is wrong']);
    assert.ok((await failures()) > before, 'counted as a failed login');
    assert.equal((await change({ currentPassword: PASSWORD, newPassword: 'short' })).statusCode, 400);
    assert.equal((await change({ currentPassword: PASSWORD, newPassword: PASSWORD })).statusCode, 400, 'the current one again');
    const done = await change({ currentPassword: PASSWORD, newPassword });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal(done.json().operator.login, 'max.mine');
    const renewed = String(done.headers['set-cookie']).split(';')[0]!;
    assert.notEqual(renewed, cookie);
    assert.equal((await session(cookie)).statusCode, 401, 'this session replaced');
    assert.equal((await session(elsewhere)).statusCode, 401, 'the other session ended');
    assert.equal((await session(renewed)).statusCode, 200);
    assert.equal(await verifyLogin(t.store.db, 'max.mine', PASSWORD, new Date()), null);
    assert.ok(await verifyLogin(t.store.db, 'max.mine', newPassword, new Date()));
    const rows = await t.store.db.selectFrom('audit_log').select(['operator_login', 'action', 'after']).where('target', '=', 'operator:max.mine').where('action', 'like', 'operator.%').orderBy('id').execute();
    assert.deepEqual(rows.map((r) => [r.operator_login, r.action]), [['cli', 'operator.create'], ['max.mine', 'operator.password']]);
    assert.ok(!JSON.stringify(rows).includes(newPassword));
  });

  test('the console stays out of /openapi.json; its pages carry a strict Content-Security-Policy', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/console')), []);
    const page = await t.app.inject({ method: 'GET', url: '/console/refunds/123' });
    // Built (text/html) or not yet built (503 saying how): either way a page of the console, never the API's 404.
    assert.ok(page.statusCode === 200 || page.statusCode === 503, String(page.statusCode));
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    // The API's JSON: not cached, not sniffed, not a document (found by a review: none of these on its answers).
    for (const res of [await t.app.inject({ method: 'GET', url: '/console/api/session' }), await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'nobody', password: 'x' } })]) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff', res.body);
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    for (const method of ['GET', 'POST'] as const) {
      const none = await t.app.inject({ method, url: '/console/api/nothing' });
      assert.equal(none.statusCode, 404, method);
      assert.deepEqual([none.json(), none.headers['x-content-type-options'], none.headers['cache-control']], [{ error: 'not found' }, 'nosniff', 'no-store'], method);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/console/assets/nothing.js' })).statusCode, 404);
  });
});

test("the refund page's post-ticketing refunds are summed per currency, each in its own (found in a review: one sum of every currency's minor units, shown in the refund's)", () => {
  const post = [
    { postTicketingOrderNo: 'P1', currency: 'EUR', originalMinor: 3000, refundMinor: 1000 },
    { postTicketingOrderNo: 'P2', currency: 'USD', originalMinor: 900, refundMinor: 500 },
    { postTicketingOrderNo: 'P3', currency: 'EUR', originalMinor: 500, refundMinor: 250 },
  ];
  assert.deepEqual(postRefundsByCurrency(post), [
    { currency: 'EUR', minor: 1250 },
    { currency: 'USD', minor: 500 },
  ]);
  assert.deepEqual(postRefundsByCurrency([]), []);
});

describe('console configuration', () => {
  test('CONSOLE_COOKIE_SECURE=always sets the Secure flag on a __Host- prefixed cookie (decision 0062); bad console settings stop the start with the variable named', async () => {
    const { loadConfig, ConfigError } = await import('../src/config.js');
    assert.throws(() => loadConfig({ CONSOLE_COOKIE_SECURE: 'sometimes' }), (e: unknown) => e instanceof ConfigError && /CONSOLE_COOKIE_SECURE/.test(e.message));
    assert.throws(() => loadConfig({ CONSOLE_DEMO_PASSWORD: 'short' }), (e: unknown) => e instanceof ConfigError && /CONSOLE_DEMO_PASSWORD/.test(e.message));
    assert.throws(() => loadConfig({ CONSOLE_SESSION_HOURS: '0' }), (e: unknown) => e instanceof ConfigError && /CONSOLE_SESSION_HOURS/.test(e.message));
    const t = await makeTestApp({ env: { CONSOLE_COOKIE_SECURE: 'always', CONSOLE_DEMO_PASSWORD: PLANTED.secrets[2] } });
    try {
      // Sandbox mode with CONSOLE_DEMO_PASSWORD: the three demo operators exist.
      const demo = await t.store.db.selectFrom('operators').select(['login', 'role']).orderBy('login').execute();
      assert.deepEqual(demo, [{ login: 'demo-admin', role: 'admin' }, { login: 'demo-agent', role: 'agent' }, { login: 'demo-viewer', role: 'viewer' }]);
      const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'demo-viewer', password: PLANTED.secrets[2] } });
      assert.equal(res.statusCode, 200, res.body);
      const setCookie = String(res.headers['set-cookie']);
      assert.match(setCookie, /; Secure/);
      // decision 0062: a Secure session cookie is __Host- prefixed, so for Path=/ and without Domain
      assert.match(setCookie, /^__Host-postbook_console=[A-Za-z0-9_-]{40,};/);
      assert.match(setCookie, /; Path=\/;/);
      assert.match(setCookie, /; HttpOnly/);
      assert.match(setCookie, /; SameSite=Strict/);
      assert.doesNotMatch(setCookie, /Domain=/i);
      const token = setCookie.split(';')[0]!.slice('__Host-postbook_console='.length);
      const session = (name: string) => t.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie: `${name}=${token}` } });
      assert.equal((await session('__Host-postbook_console')).statusCode, 200, 'the prefixed cookie opens the session');
      // a cookie of the plain name (one another subdomain or an http page could have set) is not read when Secure
      assert.equal((await session('postbook_console')).statusCode, 401, 'the plain name is not read when the cookie is Secure');
      const out = await t.app.inject({ method: 'POST', url: '/console/api/logout', headers: { cookie: `__Host-postbook_console=${token}`, 'x-csrf-token': res.json().csrfToken as string }, payload: {} });
      assert.equal(out.statusCode, 204, out.body);
      assert.match(String(out.headers['set-cookie']), /^__Host-postbook_console=;.*Path=\/;.*Expires=Thu, 01 Jan 1970/);
      assert.equal((await session('__Host-postbook_console')).statusCode, 401, 'logged out');
    } finally {
      await t.close();
    }
  });
});

describe('console sandbox panel: reload the world', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  const write = (w: unknown) => fs.writeFileSync(file, typeof w === 'string' ? w : YAML.stringify(w));
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-console-world-'));
    file = path.join(dir, 'world.yaml');
    write(world);
    t = await makeTestApp({ world, env: { WORLD: file } });
    await createOperator(t.store.db, { login: 'ada.admin', password: PASSWORD, role: 'admin' }, new Date());
    await createOperator(t.store.db, { login: 'vera.viewer', password: PASSWORD, role: 'viewer' }, new Date());
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const login = async (user: string) => {
    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: user, password: PASSWORD } });
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
  };
  const reload = (s: { cookie: string; csrf: string }) => t.app.inject({ method: 'POST', url: '/console/api/sandbox/world/reload', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: {} });
  const settingsOf = async (id: string) => (await t.store.db.selectFrom('clients').select('settings').where('client_id', '=', id).executeTakeFirst())?.settings;

  test('admins reload the world file: its clients, settings and flights are in force at once, audited; viewers are refused', async () => {
    const viewer = await login('vera.viewer');
    const shown = await t.app.inject({ method: 'GET', url: '/console/api/sandbox/world', headers: { cookie: viewer.cookie } });
    assert.equal(shown.statusCode, 200);
    assert.equal(shown.json().name, 'postbook demo world');
    const flightsBefore = shown.json().flights as number;
    assert.equal((await reload(viewer)).statusCode, 403);

    // The file changes: a new client, demo-agency's fee, one flight fewer.
    const edited = structuredClone(world) as any;
    edited.name = 'postbook demo world, edited';
    edited.clients.push({ id: 'reloaded-agency', name: 'Reloaded Agency', secret: 'reloaded-agency-secret-2026' });
    edited.clients[0].settings.refundServiceFee = 'EUR 9.00';
    const dropped = edited.flights.findIndex((f: { id: string }) => f.id === 'XS951-upper');
    assert.ok(dropped >= 0);
    edited.flights.splice(dropped, 1);
    write(edited);
    const admin = await login('ada.admin');
    const res = await reload(admin);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'postbook demo world, edited');
    assert.equal(res.json().flights, flightsBefore - 1);
    assert.equal((await settingsOf('demo-agency') as { refundServiceFee: string }).refundServiceFee, 'EUR 9.00');
    const asNew = await call(t.app, '/queryRefundOrders.do', { refundCode: '1' }, { client: { id: 'reloaded-agency', secret: 'reloaded-agency-secret-2026' } });
    assert.notEqual(asNew.http, 401, 'the new client authenticates');
    assert.equal(t.world.flights.has('XS951-upper'), false, 'this process serves the file\'s flights');
    assert.equal((await t.app.inject({ method: 'GET', url: '/console/api/seatmaps?flight=XS951-upper', headers: { cookie: admin.cookie } })).statusCode, 404);

    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('action', '=', 'sandbox.world').execute();
    assert.equal(a!.operator_login, 'ada.admin');
    assert.equal((a!.before as { name: string }).name, 'postbook demo world');
    assert.equal((a!.after as { name: string }).name, 'postbook demo world, edited');
    assert.ok(!JSON.stringify(a).includes('reloaded-agency-secret-2026'), 'no client secret in the audit log');
  });

  test('a reload enables again a world client disabled in the console: named in its audit row, and in force at once in this process (found by a review)', async () => {
    const admin = await login('ada.admin');
    const reloaded = { id: 'reloaded-agency', secret: 'reloaded-agency-secret-2026' };
    const asClient = () => call(t.app, '/queryRefundOrders.do', { refundCode: '1' }, { client: reloaded });
    assert.equal((await t.app.inject({ method: 'POST', url: '/console/api/clients/reloaded-agency/disable', headers: { cookie: admin.cookie, 'x-csrf-token': admin.csrf }, payload: {} })).statusCode, 200);
    assert.equal((await asClient()).http, 401, 'disabled (and the refusal cached)');
    const res = await reload(admin);
    assert.equal(res.statusCode, 200, res.body);
    assert.notEqual((await asClient()).http, 401, 'the file\'s client works again at once, not after the cache\'s 30 s');
    const [latest] = await t.store.db.selectFrom('audit_log').selectAll().where('action', '=', 'sandbox.world').orderBy('id', 'desc').limit(1).execute();
    assert.deepEqual((latest!.after as { reEnabledClients?: string[] }).reEnabledClients, ['reloaded-agency']);
  });

  test('a file that does not load changes nothing and the answer says why', async () => {
    const admin = await login('ada.admin');
    const before = await settingsOf('demo-agency');
    const flights = t.world.flights.size;
    const broken = structuredClone(world) as any;
    broken.clients[0].settings.refundServiceFee = 'EUR 1.00';
    broken.flights[0].from = 42;
    write(broken);
    const bad = await reload(admin);
    assert.equal(bad.statusCode, 409);
    assert.match(bad.json().error, /^the world was not reloaded, nothing changed: world file .*world\.yaml: flights\[0\]\.from /);
    // a booking made through postbook whose PNR changed in the file, its tickets kept: it cannot become an order
    // (its tickets are another order's), and nothing is written (found by a review: the reload answered success)
    const moved = structuredClone(world) as any;
    moved.clients[0].settings.refundServiceFee = 'EUR 1.00';
    moved.bookings.find((b: { pnr: string }) => b.pnr === 'DEMO20').pnr = 'DEMO2X';
    write(moved);
    const conflict = await reload(admin);
    assert.equal(conflict.statusCode, 409, conflict.body);
    assert.match(conflict.json().error, /^the world was not reloaded, nothing changed: booking XS DEMO2X cannot become an order: its ticket \S+ belongs to the order of XS DEMO20/);
    write('name: [unclosed');
    assert.match((await reload(admin)).json().error, /nothing changed: world file/);
    fs.rmSync(file);
    assert.match((await reload(admin)).json().error, /nothing changed: world file .* cannot be read: ENOENT/);
    assert.deepEqual(await settingsOf('demo-agency'), before);
    assert.equal(t.world.flights.size, flights);
    assert.equal((await t.store.db.selectFrom('audit_log').select('id').where('action', '=', 'sandbox.world').execute()).length, 2, 'only the successful reloads are audited');
  });

  test('other processes on the store follow a reload: the world is recorded with a version, without its secrets, and built again at the same time elsewhere', async () => {
    const log = { info: () => undefined, error: (o: object) => assert.fail(`follower error: ${JSON.stringify(o)}`) };
    // Another process's world (the file as at start) and its follower; and a follower of this very process.
    const elsewhere = buildWorld(world, t.clock.now());
    const other = new WorldFollower(elsewhere, t.store.db, log, 'another-process');
    const mine = buildWorld(world, t.clock.now());
    const self = new WorldFollower(mine, t.store.db, log);
    await other.start(3_600_000);
    await self.start(3_600_000);
    try {
      assert.equal(await other.check(), false, 'nothing new yet');
      const edited = structuredClone(world) as any;
      edited.name = 'postbook demo world, followed';
      edited.flights.splice(edited.flights.findIndex((f: { id: string }) => f.id === 'XS951-upper'), 1);
      write(edited);
      t.clock.advance(2 * 86_400_000);
      const res = await reload(await login('ada.admin'));
      assert.equal(res.statusCode, 200, res.body);
      const version = res.json().version as number;
      assert.ok(version >= 1);

      assert.equal(await other.check(), true);
      assert.equal(elsewhere.name, 'postbook demo world, followed');
      assert.equal(elsewhere.flights.has('XS951-upper'), false);
      // The relative times were resolved at the reload's time, as in the reloading process.
      const f = 'XS101-out';
      assert.equal(elsewhere.flights.get(f)!.current.dep.toISO(), t.world.flights.get(f)!.current.dep.toISO());
      assert.notEqual(elsewhere.flights.get(f)!.current.dep.toISO(), mine.flights.get(f)!.current.dep.toISO(), 'two days later than at start');
      assert.equal(await other.check(), false, 'seen: not applied twice');
      assert.equal(await self.check(), false, 'a process does not follow its own reload');
      assert.equal(mine.name, 'postbook demo world');

      const [row] = (await sql<{ version: string; data: unknown }>`select version, data from sandbox_world`.execute(t.store.db)).rows;
      assert.equal(Number(row!.version), version);
      const stored = JSON.stringify(row!.data);
      for (const c of world.clients) assert.ok(!stored.includes(c.secret), `no secret of ${c.id} in the store's copy`);
      const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('action', '=', 'sandbox.world').orderBy('id', 'desc').limit(1).execute();
      assert.equal((a!.after as { version: number }).version, version);
    } finally {
      other.stop();
      self.stop();
    }
  });

  test('a worker started later serves the stored world at the time it was resolved; an API process keeps its own and records it', async () => {
    const log = { info: () => undefined, error: (o: object) => assert.fail(`follower error: ${JSON.stringify(o)}`) };
    // An API process's start (src/service.ts): its world, resolved at its start, recorded for every process.
    const apiWorld = buildWorld(world, t.clock.now());
    const version = await recordWorldStart(t.store.db, apiWorld);
    // Two days later a worker starts: it reads the file at its own time, then serves the stored world.
    const later = new Date(t.clock.now().getTime() + 2 * 86_400_000);
    const workerWorld = buildWorld(world, later);
    const worker = new WorldFollower(workerWorld, t.store.db, log, 'a-worker');
    // An API process started as late keeps its own (it records it), as the follower of a process that is not `adopt`.
    const apiLater = buildWorld(world, later);
    const api = new WorldFollower(apiLater, t.store.db, log, 'an-api-process');
    await worker.start(3_600_000, { adopt: true });
    await api.start(3_600_000);
    try {
      const f = 'XS101-out';
      assert.equal(workerWorld.resolvedAt.toISOString(), apiWorld.resolvedAt.toISOString());
      assert.equal(workerWorld.flights.get(f)!.current.dep.toISO(), apiWorld.flights.get(f)!.current.dep.toISO());
      assert.equal(apiLater.resolvedAt.getTime(), later.getTime());
      assert.equal(await worker.check(), false, `version ${version} seen: not applied twice`);
      // The later API process records its world: the worker follows it.
      await recordWorldStart(t.store.db, apiLater);
      assert.equal(await worker.check(), true);
      assert.equal(workerWorld.flights.get(f)!.current.dep.toISO(), apiLater.flights.get(f)!.current.dep.toISO());
    } finally {
      worker.stop();
      api.stop();
    }
  });
});

// A review: a submission that timed out may have reached the airline, its answer lost; a withdraw at 0 then ended the
// refund here (its tickets freed) while the airline went on to pay it. The airline is asked first.
describe('console: withdraw at 0 after a failed submission asks the airline', () => {
  // The airline takes the submissions, their answers lost on the way back while `lose` is set; its status looks fail
  // while `lookDown` is.
  let lose = false;
  let lookDown = false;
  let t: TestApp;
  before(async () => {
    const w = structuredClone(world) as any;
    for (const pnr of ['DEMO11', 'DEMO22', 'DEMO23']) {
      const b = w.bookings.find((x: { pnr: string }) => x.pnr === pnr);
      b.paymentMethod = 'virtualCard';
      b.refundBehaviour = { decision: 'accept', processingSeconds: 600 };
    }
    t = await makeTestApp({
      world: w,
      connectors: (wd, books) => {
        const sandbox = new SandboxConnector(wd, books);
        const submitRefunds = sandbox.submitRefunds.bind(sandbox);
        sandbox.submitRefunds = async (carrier, subs, opts) => {
          const outcomes = await submitRefunds(carrier, subs, opts);
          return lose ? outcomes.map(() => new ConnectorError('timeout', true, 'the airline did not answer in time')) : outcomes;
        };
        const refundStatus = sandbox.refundStatus.bind(sandbox);
        sandbox.refundStatus = async (carrier, code, opts) => {
          if (lookDown) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
          return refundStatus(carrier, code, opts);
        };
        return [sandbox];
      },
    });
    await createOperator(t.store.db, { login: 'aga.agent', password: PASSWORD, role: 'agent' }, new Date());
  });
  after(() => t.close());

  test('held by the airline and still processing: withdrawn there, then 6 here; decided already: refused, nothing changed; unknown to it: withdrawn here', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: PASSWORD } });
    const agent = { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
    const withdraw = (code: string) => t.app.inject({ method: 'POST', url: `/console/api/refunds/${code}/withdraw`, headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf }, payload: {} });
    const seg = refundSegment(t.world, 'XS101-out');
    const refund = async (pnr: string, last: string, first: string) => {
      await claimWorldBooking(t, pnr, DEMO);
      const r = await call(t.app, '/refund.do', { airlinePNR: pnr, carrier: 'XS', refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: [seg] }] }, { client: DEMO });
      assert.equal(r.body.status, 0, String(r.body.msg));
      return String(r.body.refundCode);
    };
    const row = (code: string) => t.store.db.selectFrom('refund_orders').select(['status', 'poll_failures', 'cancel_reason']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    const airlineRow = (code: string) => t.store.db.selectFrom('sandbox_refunds').select(['withdrawn_at']).where('refund_code', '=', code).executeTakeFirst();
    /** The submission reaches the airline (or not), its answer lost: counted as failed, the next attempt a while off. */
    const failedAttempt = async (code: string) => {
      await t.workers.lifecycle.sweep();
      assert.deepEqual([(await row(code)).status, (await row(code)).poll_failures], [0, 1]);
      // the next attempt a minute off (as after a few failures): nothing on its way, a withdraw allowed
      await t.store.db.updateTable('refund_orders').set({ next_poll_at: new Date(t.clock.now().getTime() + 60_000) }).where('refund_code', '=', code).execute();
    };

    lose = true;
    const held = await refund('DEMO11', 'WITHDRAW', 'WALT');
    await failedAttempt(held);
    assert.ok(await airlineRow(held), 'the airline holds it');
    const ok = await withdraw(held);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((await row(held)).status, 6);
    assert.notEqual((await airlineRow(held))!.withdrawn_at, null, 'withdrawn at the airline too: it will not pay it');

    const decided = await refund('DEMO22', 'MERCHANT', 'MAX');
    await failedAttempt(decided);
    t.clock.advance(601_000); // the airline accepted it meanwhile
    await t.store.db.updateTable('refund_orders').set({ next_poll_at: new Date(t.clock.now().getTime() + 60_000) }).where('refund_code', '=', decided).execute();
    const refused = await withdraw(decided);
    assert.equal(refused.statusCode, 409, refused.body);
    assert.match(refused.json().error, /the airline holds this refund already \(refunding/);
    assert.equal((await row(decided)).status, 0, 'nothing changed');
    lose = false;

    // never reached the airline (a failed attempt counted by hand, nothing sent): the airline cannot say — 502,
    // nothing changed; it answers it does not know the refund — withdrawn here
    const unknown = await refund('DEMO23', 'OWNACCOUNT', 'ODA');
    await t.store.db.updateTable('refund_orders').set({ poll_failures: 1, next_poll_at: new Date(t.clock.now().getTime() + 60_000) }).where('refund_code', '=', unknown).execute();
    lookDown = true;
    const down = await withdraw(unknown);
    lookDown = false;
    assert.equal(down.statusCode, 502, down.body);
    assert.match(down.json().error, /could not say whether it holds the refund/);
    assert.equal((await row(unknown)).status, 0);
    const gone = await withdraw(unknown);
    assert.equal(gone.statusCode, 200, gone.body);
    assert.equal((await row(unknown)).status, 6);
    assert.equal(await airlineRow(unknown), undefined, 'the airline never had it');
  });
});

describe('console: retry a refund whose status poll gave up on airline errors', () => {
  // Polls fail while `pollsFail` is set: the airline answers refundStatus with a retryable system error.
  let pollsFail = false;
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({
      world,
      workers: true,
      // One retry, one second apart: the poll gives up within seconds.
      env: { REFUND_POLL_SECONDS: '1', REFUND_RETRY_LIMIT: '1', JOB_RETRY_DELAY_SECONDS: '1', JOB_RETRY_BACKOFF: 'false' },
      connectors: (w, books) => {
        const sandbox = new SandboxConnector(w, books);
        const refundStatus = sandbox.refundStatus.bind(sandbox);
        sandbox.refundStatus = async (carrier, code, opts) => {
          if (pollsFail) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
          return refundStatus(carrier, code, opts);
        };
        return [sandbox];
      },
    });
    await createOperator(t.store.db, { login: 'aga.agent', password: PASSWORD, role: 'agent' }, new Date());
  });
  after(() => t.close());

  const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 30_000) => waitUntil(what, fn, ms);

  test('at 1 with its poll job failed (gave up), an agent re-queues the poll (audited) and the refund moves on to 2; while the poll waits or retries, refused', async () => {
    const seg = refundSegment(t.world, 'XS101-out');
    const seg2 = refundSegment(t.world, 'XS102-ret');
    pollsFail = true;
    const r = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments: [seg, seg2] }] }, { client: DEMO });
    assert.equal(r.body.status, 0, String(r.body.msg));
    const code = String(r.body.refundCode);
    const statusOf = async () => (await t.store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', code).executeTakeFirstOrThrow()).status;
    await waitFor('status 1', async () => (await statusOf()) === 1);

    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: PASSWORD } });
    const agent = { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
    const detail = async () => (await t.app.inject({ method: 'GET', url: `/console/api/refunds/${code}`, headers: { cookie: agent.cookie } })).json().refund;
    const retry = () => t.app.inject({ method: 'POST', url: `/console/api/refunds/${code}/retry`, headers: { cookie: agent.cookie, 'x-csrf-token': agent.csrf }, payload: {} });

    // The poll is still to run (waiting, retrying after the airline's error, or running): nothing to retry.
    const early = await retry();
    if (early.statusCode !== 409) assert.fail(`retry while the poll is live: ${early.statusCode} ${early.body}`);
    assert.match(early.json().error, /^cannot retry: its status poll (is waiting|failed 1 time\(s\) and tries again|is running now)/);

    // Two attempts (one retry), both refused by the airline: the poll job gives up, the refund stays at 1.
    const gaveUp = await waitFor('the poll job to fail', async () => {
      const d = await detail();
      return d.pollJob?.state === 'failed' ? d : null;
    });
    assert.equal(gaveUp.status, 1);
    assert.equal(gaveUp.pollJob.failedAttempts, 1, 'the first attempt and its one retry');
    assert.match(gaveUp.pollJob.lastError, /airline system answered with an error/);
    assert.deepEqual(gaveUp.actions.retry, { allowed: true });
    assert.equal(await statusOf(), 1, 'nobody looks at the airline any more');

    // The airline answers again, and meanwhile it has refunded (past twice its processing time).
    pollsFail = false;
    t.clock.advance(60_000);
    const ok = await retry();
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { queued: true, step: 'poll' });
    await waitFor('status 2 after the retried poll', async () => (await statusOf()) === 2);
    const history = await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status']).where('refund_code', '=', code).orderBy('id').execute();
    assert.deepEqual(history.map((h) => [h.from_status, h.to_status]), [[null, 0], [0, 1], [1, 3], [3, 2]]);
    const audits = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', `refund:${code}`).where('action', '=', 'refund.retry').execute();
    assert.equal(audits.length, 1, 'the refused retry left no audit row');
    assert.equal(audits[0]!.operator_login, 'aga.agent');
    assert.deepEqual(audits[0]!.before, { status: 1, pollJob: { state: 'failed', failedAttempts: 1 } });
    assert.deepEqual(audits[0]!.after, { status: 1, pollQueued: true });
    // Final now: nothing to retry.
    assert.match((await retry()).json().error, /final \(status 2\)/);
  });
});

describe('console: withdraw at 0 while the lifecycle sends the refund to the airline', () => {
  let t: TestApp;
  let release: () => void = () => undefined;
  let entered: () => void = () => undefined;
  before(async () => {
    t = await makeTestApp({
      world,
      // the sandbox airline, its submissions held until the test lets them go (a slow airline)
      connectors: (w, books) => [
        new Proxy(new SandboxConnector(w, books), {
          get: (target, prop) =>
            prop === 'submitRefunds'
              ? async (...args: Parameters<SandboxConnector['submitRefunds']>) => {
                  entered();
                  await new Promise<void>((r) => (release = r));
                  return target.submitRefunds(...args);
                }
              : Reflect.get(target, prop, target),
        }),
      ],
    });
    await createOperator(t.store.db, { login: 'aga.agent', password: PASSWORD, role: 'agent' }, new Date());
  });
  after(() => t.close());

  test('refused while the submission is at the airline (found by a review: withdrawn here, the airline then took it and paid; the ticket refundable twice)', async () => {
    await claimWorldBooking(t, 'DEMO02', DEMO);
    const segment = refundSegment(t.world, 'XS201-changed');
    const request = { airlinePNR: 'DEMO02', carrier: 'XS', refundRequestList: [{ lastName: 'CHANGE', firstName: 'CARL', refundReason: '1', segments: [segment] }] };
    const r = await call(t.app, '/refund.do', request, { client: DEMO });
    assert.equal(r.body.status, 0, String(r.body.msg));
    const code = String(r.body.refundCode);
    const atAirline = new Promise<void>((ok) => (entered = ok));
    const submitting = t.workers.lifecycle.submitBatch([code]); // the sweep's submission: the airline call under way
    await atAirline;
    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: PASSWORD } });
    const headers = { cookie: String(res.headers['set-cookie']).split(';')[0]!, 'x-csrf-token': res.json().csrfToken as string };
    const w = await t.app.inject({ method: 'POST', url: `/console/api/refunds/${code}/withdraw`, headers, payload: {} });
    assert.equal(w.statusCode, 409, w.body);
    assert.match(w.json().error, /being sent to the airline now/);
    release();
    await submitting;
    const ours = await t.store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', code).executeTakeFirstOrThrow();
    assert.equal(ours.status, 1, 'the airline took it: it follows the airline');
    const again = await call(t.app, '/refund.do', request, { client: DEMO });
    assert.equal(again.body.status, 803, 'its ticket is not refundable a second time');
  });
});

describe('console: withdraw a refund claim the airline holds (status 1 → 6, docs/architecture.md "Refund lifecycle")', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world });
    await createOperator(t.store.db, { login: 'aga.agent', password: PASSWORD, role: 'agent' }, new Date());
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  /** A refund claim of a world booking, submitted to the sandbox airline by the lifecycle: status 1. */
  const claimAtAirline = async (pnr: string, lastName: string, firstName: string, ...flightIds: string[]) => {
    await claimWorldBooking(t, pnr, DEMO);
    const r = await call(t.app, '/refund.do', { airlinePNR: pnr, carrier: 'XS', refundRequestList: [{ lastName, firstName, refundReason: '1', segments: flightIds.map(seg) }] }, { client: DEMO });
    assert.equal(r.body.status, 0, String(r.body.msg));
    const code = String(r.body.refundCode);
    await t.workers.lifecycle.submitBatch([code]);
    return code;
  };
  const statusOf = async (code: string) => (await t.store.db.selectFrom('refund_orders').select(['status', 'cancel_reason']).where('refund_code', '=', code).executeTakeFirstOrThrow());
  const session = async () => {
    const res = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: PASSWORD } });
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
  };
  const withdraw = (s: { cookie: string; csrf: string }, code: string) =>
    t.app.inject({ method: 'POST', url: `/console/api/refunds/${code}/withdraw`, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: {} });

  test('while the airline processes it: withdrawn at the airline first, then 6 here (audited; the client sees 6 and its cancelReason); the tickets are free again', async () => {
    const code = await claimAtAirline('DEMO02', 'CHANGE', 'CARL', 'XS201-changed');
    assert.equal((await statusOf(code)).status, 1);
    const quote = () =>
      call(t.app, '/refundQuotation.do', { airlinePNR: 'DEMO02', carrier: 'XS', refundRequestList: [{ lastName: 'CHANGE', firstName: 'CARL', refundReason: '1', segments: [seg('XS201-changed')] }] }, { client: DEMO });
    assert.equal((await quote()).body.status, 803, 'the ticket taken; the order’s context read and kept in this process'); // spec 7.1: 803
    const agent = await session();
    const detail = (await t.app.inject({ method: 'GET', url: `/console/api/refunds/${code}`, headers: { cookie: agent.cookie } })).json().refund;
    assert.deepEqual(detail.actions.withdraw, { allowed: true });

    const ok = await withdraw(agent, code);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { ok: true, atAirline: true });
    assert.deepEqual(await statusOf(code), { status: 6, cancel_reason: CANCEL_REASON.USER_CANCELLED });
    // The withdrawal freed the ticket and dropped the order's kept context: the next quote reads it at once.
    const cache = contextCacheFor(t.store.db);
    const { hits, misses } = cache;
    const quoted = await quote();
    assert.equal(quoted.body.status, 0, String(quoted.body.msg));
    assert.deepEqual({ hits: cache.hits, misses: cache.misses }, { hits, misses: misses + 1 }, 'read at once, no stale copy priced first');
    const airline = await t.store.db.selectFrom('sandbox_refunds').select('withdrawn_at').where('refund_code', '=', code).executeTakeFirstOrThrow();
    assert.ok(airline.withdrawn_at, 'the airline recorded the withdrawal');
    const q = await call(t.app, '/queryRefundOrders.do', { refundCode: code }, { client: DEMO });
    assert.equal((q.body as any).refundOrders[0].refundStatus, 6);
    const history = await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status', 'cause']).where('refund_code', '=', code).orderBy('id').execute();
    assert.deepEqual(history.at(-1), { from_status: 1, to_status: 6, cause: 'withdrawn in the console; withdrawn at the airline' }, 'no operator login: the cause reaches the client');
    const [a] = await t.store.db.selectFrom('audit_log').selectAll().where('target', '=', `refund:${code}`).execute();
    assert.equal(a!.action, 'refund.withdraw');
    assert.deepEqual(a!.before, { status: 1, cancelReason: null });
    assert.deepEqual(a!.after, { status: 6, cancelReason: CANCEL_REASON.USER_CANCELLED, atAirline: true });
    // The poll that follows finds nothing to do (6 is final), and the ticket may be refunded again.
    await t.workers.lifecycle.pollStep(code);
    assert.equal((await statusOf(code)).status, 6);
    const again = await call(t.app, '/refund.do', { airlinePNR: 'DEMO02', carrier: 'XS', refundRequestList: [{ lastName: 'CHANGE', firstName: 'CARL', refundReason: '1', segments: [seg('XS201-changed')] }] }, { client: DEMO });
    assert.equal(again.body.status, 0, String(again.body.msg));
  });

  /** An app on the same store whose airline withdrawal runs `during` after the airline agreed, before the refund moves here. */
  const appWithWithdrawHook = (during: (refundCode: string) => Promise<void>) =>
    makeTestApp({
      world,
      store: t.store,
      connectors: (w, books) => {
        const sandbox = new SandboxConnector(w, books);
        const real = sandbox.withdrawRefund.bind(sandbox);
        // `during` runs whatever the airline answered: a hook waiting for two withdrawals never waits for good on
        // one the airline refused (a CI run on PostgreSQL hung here until killed)
        sandbox.withdrawRefund = async (carrier, refundCode, opts) => {
          try {
            return await real(carrier, refundCode, opts);
          } finally {
            await during(refundCode);
          }
        };
        return [sandbox];
      },
    });
  const sessionOn = async (app: TestApp, login: string) => {
    const res = await app.app.inject({ method: 'POST', url: '/console/api/login', payload: { login, password: PASSWORD } });
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
  };
  const withdrawOn = (app: TestApp, s: { cookie: string; csrf: string }, code: string) =>
    app.app.inject({ method: 'POST', url: `/console/api/refunds/${code}/withdraw`, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: {} });

  test('two agents withdrawing at once: one withdraws, the other is told who did (found by a review: both succeeded, two audit rows)', { timeout: 60_000 }, async () => {
    await createOperator(t.store.db, { login: 'ava.agent', password: PASSWORD, role: 'agent' }, new Date());
    // both past the airline's answer before either moves the refund
    let arrived = 0;
    let release: () => void = () => undefined;
    const both = new Promise<void>((resolve) => (release = resolve));
    const other = await appWithWithdrawHook(async () => {
      if (++arrived === 2) release();
      // at most 10 s: a second withdrawal that never reaches the airline fails the test instead of hanging it
      await Promise.race([both, new Promise((r) => setTimeout(r, 10_000))]);
    });
    try {
      const [aga, ava] = [await sessionOn(other, 'aga.agent'), await sessionOn(other, 'ava.agent')];
      // the refund made last, right before the withdrawals: the sandbox airline accepts a claim 20 s (real time)
      // after its submission, and refuses to withdraw it then (a loaded CI machine took longer over the set-up)
      const code = await claimAtAirline('DEMO01', 'TRAVELLER', 'BEN', 'XS101-out', 'XS102-ret');
      const answers = await Promise.all([withdrawOn(other, aga, code), withdrawOn(other, ava, code)]);
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
      const refused = answers.find((a) => a.statusCode === 409)!;
      assert.match(refused.json().error, /^cannot withdraw: withdrawn already by (aga|ava)\.agent at \d{4}-/);
      assert.equal((await statusOf(code)).status, 6);
      const rows = await t.store.db.selectFrom('audit_log').select('action').where('target', '=', `refund:${code}`).execute();
      assert.deepEqual(rows.map((r) => r.action), ['refund.withdraw'], 'one withdrawal, one audit row');
    } finally {
      await other.close();
    }
  });

  test('the poll moved the refund between the airline\'s yes and the move here: the operator\'s request is recorded once', async () => {
    const code = await claimAtAirline('DEMO06', 'FAMILY', 'HAL', 'XS101-out');
    const other = await appWithWithdrawHook((refundCode) => t.workers.lifecycle.pollStep(refundCode));
    try {
      const ok = await withdrawOn(other, await sessionOn(other, 'aga.agent'), code);
      assert.equal(ok.statusCode, 200, ok.body);
      const history = await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status']).where('refund_code', '=', code).orderBy('id').execute();
      assert.deepEqual(history.at(-1), { from_status: 1, to_status: 6 }, 'moved by the poll');
      const rows = await t.store.db.selectFrom('audit_log').select(['action', 'operator_login']).where('target', '=', `refund:${code}`).execute();
      assert.deepEqual(rows, [{ action: 'refund.withdraw', operator_login: 'aga.agent' }]);
    } finally {
      await other.close();
    }
  });

  test('once the airline accepted it, the airline refuses: 409 with its reason, the refund stays at 1, nothing audited; the poll then moves it on', async () => {
    const code = await claimAtAirline('DEMO07', 'YEN', 'JUN', 'XS501-jpy');
    t.clock.advance(25_000); // past the airline's processing time (20 s): accepted, the money on its way
    const agent = await session();
    const refused = await withdraw(agent, code);
    assert.equal(refused.statusCode, 409);
    assert.match(refused.json().error, /^the airline refused the withdrawal, nothing changed: sandbox airline XS refuses to withdraw refund \d+: it accepted the refund and the money is on its way$/);
    assert.equal((await statusOf(code)).status, 1);
    assert.equal((await t.store.db.selectFrom('audit_log').select('id').where('target', '=', `refund:${code}`).execute()).length, 0);
    t.clock.advance(20_000);
    await t.workers.lifecycle.pollStep(code);
    assert.equal((await statusOf(code)).status, 5, 'refunded to the card: fulfilment done');
    assert.match((await withdraw(agent, code)).json().error, /final \(status 5\)/);
  });

  test('a deposit refund at 1 cannot be withdrawn (its path has no 6), and an airline connection without withdrawal leaves a claim at 1 as it is', async () => {
    const r = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments: [seg('XS101-out'), seg('XS102-ret')] }] }, { client: DEMO });
    const code = String(r.body.refundCode);
    await t.workers.lifecycle.submitBatch([code]);
    const agent = await session();
    assert.match((await withdraw(agent, code)).json().error, /only refund claims and pass-through virtual card refunds/);

    const other = await makeTestApp({
      world,
      store: t.store,
      // An airline connection without withdrawRefund (as a real one may be).
      connectors: (w, books) => [new Proxy(new SandboxConnector(w, books), { get: (target, prop) => (prop === 'withdrawRefund' ? undefined : Reflect.get(target, prop, target)) })],
    });
    try {
      const claim = (await t.store.db.selectFrom('refund_orders').select('refund_code').where('path', '=', 'card').where('status', '=', 6).executeTakeFirstOrThrow()).refund_code;
      await t.store.db.updateTable('refund_orders').set({ status: 1 }).where('refund_code', '=', claim).execute();
      const res = await other.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'aga.agent', password: PASSWORD } });
      const s = { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken as string };
      const d = (await other.app.inject({ method: 'GET', url: `/console/api/refunds/${claim}`, headers: { cookie: s.cookie } })).json().refund;
      assert.deepEqual(d.actions.withdraw, { allowed: false, why: 'the airline holds this refund (status 1) and its connection offers no withdrawal' });
      const refused = await other.app.inject({ method: 'POST', url: `/console/api/refunds/${claim}/withdraw`, headers: { cookie: s.cookie, 'x-csrf-token': s.csrf }, payload: {} });
      assert.equal(refused.statusCode, 409);
      assert.equal((await statusOf(claim)).status, 1);
    } finally {
      await other.close();
    }
  });
});
