// The console queue's counts per status and airline (docs/console.md "Refund queue", migrations 0018 and 0025): maintained by triggers on
// refund_orders and void_orders, they must equal a count of the rows after every kind of write — refund.do, the
// lifecycle's batch moves, a console withdrawal, a void, many rows in one statement, concurrent statements on
// several connections (PostgreSQL), a delete — and the queue's filtered counts must equal those of the full query.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import YAML from 'yaml';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { refundQueue, type QueueFilter } from '../src/console/queue.js';
import { call, makeTestApp, type TestApp } from '../src/test-support/app.js';
import { claimWorldBooking } from '../src/test-support/claim.js';
import { carrierVoidClock } from '../src/test-support/void-world.js';
import { refundSegment } from '../src/test-support/refund-world.js';

const DEMO = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../worlds/demo.yaml'), 'utf8')) as WorldFile;

describe('console queue counts', () => {
  let t: TestApp;
  before(async () => {
    // the test voids DEMO27 of XS, voidable until the end of its issue day in Asia/Tokyo
    t = await makeTestApp({ world, clock: carrierVoidClock(world, 'XS') });
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  // Per airline too (migration 0025: /metrics reads them): counted by the airline of each row's order.
  const maintained = async () => {
    const { rows } = await sql<{ kind: string; status: number; carrier: string; n: string | number }>`
      select kind, status, carrier, sum(n) as n from console_queue_counts group by kind, status, carrier having sum(n) <> 0
      order by kind, status, carrier`.execute(t.store.db);
    return rows.map((r) => `${r.kind}:${r.status}:${r.carrier}=${Number(r.n)}`);
  };
  const counted = async () => {
    const { rows } = await sql<{ kind: string; status: number; carrier: string; n: string | number }>`
      select kind, status, carrier, n from (
        select 'refund' as kind, r.status, o.carrier, count(*) as n from refund_orders r join orders o on o.order_no = r.order_no group by r.status, o.carrier
        union all select 'void', v.status, o.carrier, count(*) from void_orders v join orders o on o.order_no = v.order_no group by v.status, o.carrier) c
      order by kind, status, carrier`.execute(t.store.db);
    return rows.map((r) => `${r.kind}:${r.status}:${r.carrier}=${Number(r.n)}`);
  };
  const same = async (when: string) => assert.deepEqual(await maintained(), await counted(), when);

  test('equal to a count of the rows after refund.do, the lifecycle, a withdrawal, a void, bulk and concurrent updates and a delete', async () => {
    await same('at start');
    const codes: string[] = [];
    for (const [pnr, last, first, flights] of [
      ['DEMO20', 'REFUND', 'RUI', ['XS101-out', 'XS102-ret']],
      ['DEMO26', 'ELSEWHERE', 'ELLIS', ['XS101-out']],
    ] as const) {
      const r = await call(t.app, '/refund.do', { airlinePNR: pnr, carrier: 'XS', refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: flights.map(seg) }] }, { client: DEMO });
      assert.equal(r.body.status, 0, String(r.body.msg));
      codes.push(String(r.body.refundCode));
    }
    await claimWorldBooking(t, 'DEMO02', DEMO);
    const claim = await call(t.app, '/refund.do', { airlinePNR: 'DEMO02', carrier: 'XS', refundRequestList: [{ lastName: 'CHANGE', firstName: 'CARL', refundReason: '1', segments: [seg('XS201-changed')] }] }, { client: DEMO });
    codes.push(String(claim.body.refundCode));
    await same('after refund.do');
    await t.workers.lifecycle.submitBatch(codes);
    await same('after the batch 0 → 1');
    t.clock.advance(25_000);
    for (const c of codes) await t.workers.lifecycle.pollStep(c);
    await same('after polls (1 → 3 for the deposit refund)');
    const vq = await call(t.app, '/voidQuotation.do', { airlinePNR: 'DEMO27', carrier: 'XS' }, { client: DEMO });
    assert.equal(vq.body.status, 0, String(vq.body.msg));
    assert.equal((await call(t.app, '/void.do', { airlinePNR: 'DEMO27', carrier: 'XS', voidOfferId: vq.body.voidOfferId }, { client: DEMO })).body.status, 0);
    await same('after a void');

    // Many rows in one statement, and then each row moved by a statement of its own, concurrently (on
    // PostgreSQL: over the store's pool, several connections and so several counter slots).
    const { rows: tpl } = await sql<{ refund_code: string }>`select refund_code from refund_orders order by refund_code limit 1`.execute(t.store.db);
    const columnsOf = async (table: string) =>
      (await sql<{ column_name: string }>`select column_name from information_schema.columns where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(t.store.db)).rows.map((c) => c.column_name);
    const offerCols = await columnsOf('refund_offers');
    await sql`insert into refund_offers (${sql.join(offerCols.map((c) => sql.id(c)))}) select ${sql.join(offerCols.map((c) => (c === 'offer_id' ? sql`'rfo_C' || g` : sql.ref(`o.${c}`))))}
      from refund_offers o, generate_series(1, 300) g where o.offer_id = (select offer_id from refund_orders where refund_code = ${tpl[0]!.refund_code})`.execute(t.store.db);
    const cols = await columnsOf('refund_orders');
    const value = (c: string) => (c === 'refund_code' ? sql`'C' || g` : c === 'offer_id' ? sql`'rfo_C' || g` : c === 'status' ? sql`g % 7` : sql.ref(`r.${c}`));
    await sql`insert into refund_orders (${sql.join(cols.map((c) => sql.id(c)))}) select ${sql.join(cols.map(value))}
      from refund_orders r, generate_series(1, 300) g where r.refund_code = ${tpl[0]!.refund_code}`.execute(t.store.db);
    await same('after 300 refunds in one statement');
    // A row written without its airline (an older build's process during an upgrade, an operator's SQL) takes
    // its order's (here another airline's booking), and is counted under it.
    const xn = await t.store.db.selectFrom('orders').select('order_no').where('carrier', '=', 'XN').executeTakeFirstOrThrow();
    await sql`insert into refund_offers (${sql.join(offerCols.map((c) => sql.id(c)))}) select ${sql.join(offerCols.map((c) => (c === 'offer_id' ? sql`'rfo_D1'` : c === 'order_no' ? sql`${xn.order_no}` : sql.ref(`o.${c}`))))}
      from refund_offers o where o.offer_id = 'rfo_C1'`.execute(t.store.db);
    const given = cols.filter((c) => c !== 'carrier');
    const d1Value = (c: string) => (c === 'refund_code' ? sql`'D1'` : c === 'offer_id' ? sql`'rfo_D1'` : c === 'order_no' ? sql`${xn.order_no}` : sql.ref(`r.${c}`));
    await sql`insert into refund_orders (${sql.join(given.map((c) => sql.id(c)))}) select ${sql.join(given.map(d1Value))}
      from refund_orders r where r.refund_code = ${tpl[0]!.refund_code}`.execute(t.store.db);
    const d1 = await t.store.db.selectFrom('refund_orders').select('carrier').where('refund_code', '=', 'D1').executeTakeFirstOrThrow();
    assert.equal(d1.carrier, 'XN', 'the order\'s airline');
    await same('after a refund written without its airline');
    // (Every other refund here is XS; the queue test below filters by XS, xs and XN alone and with other filters.)
    await sql`delete from refund_orders where refund_code = 'D1'`.execute(t.store.db);
    await same('after its delete');
    await sql`update refund_orders set status = 4 where refund_code like 'C%' and status in (0, 1)`.execute(t.store.db);
    await same('after one statement moving many');
    await Promise.all(Array.from({ length: 300 }, (_, i) => sql`update refund_orders set status = ${(i * 3) % 7} where refund_code = ${`C${i + 1}`}`.execute(t.store.db)));
    await same('after 300 concurrent single-row updates');
    await sql`update refund_orders set updated_at = now() where refund_code like 'C%'`.execute(t.store.db);
    await same('after an update that moves no status');
    await sql`delete from refund_orders where refund_code like 'C1%'`.execute(t.store.db);
    await same('after a delete');
    // A rolled-back statement counts nothing.
    await t.store.db.transaction().execute(async (trx) => {
      await sql`update refund_orders set status = 2 where refund_code like 'C2%'`.execute(trx);
      throw new Error('roll back');
    }).catch((err: Error) => assert.equal(err.message, 'roll back'));
    await same('after a rollback');
  });

  test("the queue's counts under every filter equal those of the full query (the maintained and own-table paths agree with the join)", async () => {
    const env = { now: t.clock.now(), submitTargetMinutes: 15 };
    // The reference: every refund and void joined to its order (the airline is the order's), counted under the
    // filter's conditions — what the queue's own join path counts, written out here.
    const full = async (f: QueueFilter) => {
      const c = [sql`true`];
      if (f.kind) c.push(sql`q.kind = ${f.kind}`);
      if (f.airline) c.push(sql`q.carrier = ${f.airline.toUpperCase()}`);
      if (f.client) c.push(sql`q.client_id = ${f.client}`);
      if (f.reason) c.push(sql`q.reason = ${f.reason}`);
      if (f.minAgeHours !== undefined) c.push(sql`q.created_at <= ${new Date(env.now.getTime() - f.minAgeHours * 3_600_000)}::timestamptz`);
      const { rows } = await sql<{ kind: 'refund' | 'void'; status: number; n: string | number }>`
        select q.kind, q.status, count(*) as n from (
          select 'refund' as kind, r.status, o.carrier, r.client_id, r.reason, r.created_at from refund_orders r join orders o on o.order_no = r.order_no
          union all
          select 'void', v.status, o.carrier, v.client_id, '4', v.created_at from void_orders v join orders o on o.order_no = v.order_no) q
        where ${sql.join(c, sql` and `)} group by q.kind, q.status`.execute(t.store.db);
      const counts: Record<'refund' | 'void', Record<string, number>> = { refund: {}, void: {} };
      for (const r of rows) counts[r.kind][String(r.status)] = Number(r.n);
      return counts;
    };
    const filters: QueueFilter[] = [{}, { kind: 'refund' }, { kind: 'void' }, { client: 'demo-agency' }, { client: 'other-agency' }, { reason: '1' }, { reason: '4' }, { minAgeHours: 0 }, { minAgeHours: 1000 }, { status: 1 }];
    // The airline (migration 0025: the maintained counts and the own-table path have it), alone and with others.
    for (const airline of ['XS', 'xs', 'XN']) filters.push({ airline }, { airline, client: 'demo-agency' }, { airline, kind: 'void', minAgeHours: 0 });
    for (const f of filters) {
      const a = await refundQueue(t.store.db, f, env);
      assert.deepEqual(a.counts, await full(f), JSON.stringify(f));
    }
  });
});
