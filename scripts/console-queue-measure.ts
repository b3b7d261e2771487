// How long the console's refund queue takes at 10⁵ refunds (docs/console.md "Performance"): fills a fresh store
// (PGlite, or PostgreSQL with DATABASE_URL) with N copies of one refund of the demo world spread over the
// statuses, then times the queue's first page with its counts, unfiltered and with each kind of filter.
// Last, what the counting triggers (migration 0018) cost a status change. Usage:
// npx tsx scripts/console-queue-measure.ts [N=100000] [runs=5]   (DATABASE_URL=… for PostgreSQL)
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import YAML from 'yaml';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { refundQueue, type QueueFilter } from '../src/console/queue.js';
import { call, makeTestApp } from '../src/test-support/app.js';

const n = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 5);
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../worlds/demo.yaml'), 'utf8')) as WorldFile;
const t = await makeTestApp({ world });
try {
  const db = t.store.db;
  const f = (id: string) => {
    const x = t.world.flights.get(id)!;
    return { depDate: x.current.dep.toFormat('yyyyMMdd'), flightNo: x.flightNumber, depAirport: x.from, arrAirport: x.to };
  };
  const r = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments: [f('XS101-out'), f('XS102-ret')] }] }, { client: { id: 'demo-agency', secret: 'demo-agency-secret-2026' } });
  if (r.body.status !== 0) throw new Error(`refund.do: ${JSON.stringify(r.body)}`);
  const tpl = String(r.body.refundCode);
  const columnsOf = async (table: string) =>
    (await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_name = ${table} and table_schema = current_schema() order by ordinal_position`.execute(db)).rows.map((c) => c.column_name);
  const cols = await columnsOf('refund_orders');
  const offerCols = await columnsOf('refund_offers');
  const offerId = sql`'rfo_Q' || lpad(g::text, 9, '0')`;
  const value = (c: string) => {
    if (c === 'offer_id') return offerId;
    if (c === 'refund_code') return sql`'Q' || lpad(g::text, 9, '0')`;
    if (c === 'status') return sql`(g % 7)`;
    if (c === 'created_at' || c === 'updated_at') return sql`t.created_at - (g || ' minutes')::interval`;
    return sql.ref(`t.${c}`);
  };
  const started = performance.now();
  for (let from = 1; from <= n; from += 10_000) {
    const to = Math.min(n, from + 9_999);
    await sql`insert into refund_offers (${sql.join(offerCols.map((c) => sql.id(c)))})
      select ${sql.join(offerCols.map((c) => (c === 'offer_id' ? offerId : sql.ref(`t.${c}`))))} from refund_offers t, generate_series(${from}::int, ${to}::int) g
      where t.offer_id = (select offer_id from refund_orders where refund_code = ${tpl})`.execute(db);
    await sql`insert into refund_orders (${sql.join(cols.map((c) => sql.id(c)))})
      select ${sql.join(cols.map(value))} from refund_orders t, generate_series(${from}::int, ${to}::int) g where t.refund_code = ${tpl}`.execute(db);
  }
  await sql`analyze`.execute(db);
  if (t.store.kind === 'postgres') await sql`vacuum (analyze) refund_orders`.execute(db).catch(() => undefined);
  else await sql`vacuum refund_orders`.execute(db);
  console.log(`${t.store.kind}: ${n} refunds written in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const env = { now: t.clock.now(), submitTargetMinutes: 15 };
  const cases: Array<[string, QueueFilter]> = [
    ['unfiltered (the queue as opened)', {}],
    ['status 1', { status: 1 }],
    ['refunds only', { kind: 'refund' }],
    ['client', { client: 'demo-agency' }],
    ['older than 24 h', { minAgeHours: 24 }],
    ['airline XS', { airline: 'XS' }],
    ['with an SLA badge', { late: true }],
  ];
  for (const [name, filter] of cases) {
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      total = (await refundQueue(db, filter, env)).total;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(34)} total ${String(total).padStart(7)}  median ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms  (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)})`);
  }
  // What the counting triggers cost a write: single-row status changes (the lifecycle's transitions), with the
  // triggers and with them disabled, alternately (the counts drift meanwhile: this store is thrown away).
  const writes = 2_000;
  let move = 0;
  const timeWrites = async () => {
    move++;
    const t0 = performance.now();
    for (let g = 1; g <= writes; g++) await sql`update refund_orders set status = ${(g + move) % 7} where refund_code = ${'Q' + String(g).padStart(9, '0')}`.execute(db);
    return (performance.now() - t0) / writes;
  };
  const triggers = async (on: boolean) => {
    for (const t of ['insert', 'update', 'delete']) await sql.raw(`alter table refund_orders ${on ? 'enable' : 'disable'} trigger refund_orders_counted_${t}`).execute(db);
  };
  const per: Record<string, number[]> = { with: [], without: [] };
  for (let round = 0; round < 3; round++) {
    per.with!.push(await timeWrites());
    await triggers(false);
    per.without!.push(await timeWrites());
    await triggers(true);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  console.log(`single-row status change: ${(med(per.with!) * 1000).toFixed(0)} µs with the counting triggers, ${(med(per.without!) * 1000).toFixed(0)} µs without (median of 3 rounds of ${writes})`);
} finally {
  await t.close();
}
