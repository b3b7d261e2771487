// Scale measure of `npm run bench`: refundQuotation.do median latency with 10⁶ orders in the store ÷ with 10³
// (docs/architecture.md "Performance targets", ≤ 1.3). Orders are bulk-loaded by the database itself (INSERT … SELECT over
// generate_series, copies of a demo booking), never one request per order.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/store/schema.js';
import { LoadFailure, settleTables, startCpuMeter, type LoadResult } from './harness.js';
import { round2, type BenchContext, type Measure, type MeasureOutcome } from './measures.js';

/** Orders in the store for the large figure: 10⁶ unless BENCH_SCALE_ORDERS says otherwise (small machines). */
function largeSize(env: NodeJS.ProcessEnv): number {
  const raw = env.BENCH_SCALE_ORDERS?.trim();
  const n = raw ? Number(raw) : 1_000_000;
  if (!Number.isInteger(n) || n < 10_000) throw new Error(`BENCH_SCALE_ORDERS must be a whole number ≥ 10000, got ${JSON.stringify(raw)}`);
  return n;
}

const SMALL = 1_000;
/** Orders written per statement: big enough to keep the load fast, small enough to keep memory flat. */
const BATCH = 50_000;

/**
 * Planted orders are copies of the template order (DEMO24 of demo-agency: one passenger, two tickets with one
 * coupon each, two segments) under keys unique to this run: `<tag><n>` (order, PNR) and `<tag><n>-<k>`
 * (tickets), so a reused PostgreSQL database never collides and `cleanUp` finds them by prefix.
 */
async function plant(db: Kysely<Database>, template: string, tag: string, from: number, to: number, skipTriggers: boolean): Promise<void> {
  const range = sql`generate_series(${from}::int, ${to - 1}::int)`;
  await db.transaction().execute(async (trx) => {
    // Like pg_restore --disable-triggers: the copies reference only rows written just before them, so the
    // per-row foreign-key triggers (most of the load time on PGlite) would check nothing new.
    if (skipTriggers) await sql`set local session_replication_role = replica`.execute(trx);
    await sql`
      insert into orders (order_no, client_id, source, status, carrier, airline_pnr, contact_email, contact_phone, payment_method, currency,
                          total_minor, ticketed_at, created_at, updated_at)
      select ${tag} || g, o.client_id, o.source, o.status, o.carrier, ${tag} || g, o.contact_email, o.contact_phone, o.payment_method, o.currency,
             o.total_minor, o.ticketed_at, o.created_at, o.updated_at
      from orders o, ${range} g where o.order_no = ${template}`.execute(trx);
    await sql`
      insert into order_passengers (order_no, pax_index, passenger_type, last_name, first_name, birthday, gender)
      select ${tag} || g, p.pax_index, p.passenger_type, p.last_name, p.first_name, p.birthday, p.gender
      from order_passengers p, ${range} g where p.order_no = ${template}`.execute(trx);
    await sql`
      insert into order_segments (order_no, segment_index, direction, carrier, flight_number, dep_airport, arr_airport, dep_local, arr_local,
                                  dep_at, arr_at, cabin_class, fare_family, operating_carrier, operating_flight_number, dep_time_zone, booked_dep_local)
      select ${tag} || g, s.segment_index, s.direction, s.carrier, s.flight_number, s.dep_airport, s.arr_airport, s.dep_local, s.arr_local,
             s.dep_at, s.arr_at, s.cabin_class, s.fare_family, s.operating_carrier, s.operating_flight_number, s.dep_time_zone, s.booked_dep_local
      from order_segments s, ${range} g where s.order_no = ${template}`.execute(trx);
    await sql`
      insert into tickets (ticket_no, order_no, pax_index, currency, fare_minor, tax_minor, issued_at, tax_status_confirmed)
      select ${tag} || g || '-' || t.ticket_no, ${tag} || g, t.pax_index, t.currency, t.fare_minor, t.tax_minor, t.issued_at, t.tax_status_confirmed
      from tickets t, ${range} g where t.order_no = ${template}`.execute(trx);
    await sql`
      insert into ticket_coupons (ticket_no, segment_index, status)
      select ${tag} || g || '-' || c.ticket_no, c.segment_index, c.status
      from ticket_coupons c join tickets t on t.ticket_no = c.ticket_no, ${range} g where t.order_no = ${template}`.execute(trx);
  });
}

/** Removes this run's planted orders and the offers quoted on them (PostgreSQL keeps its database between runs). */
async function cleanUp(db: Kysely<Database>, tag: string, skipTriggers: boolean): Promise<void> {
  // A prefix match (LIKE, the tag holds no wildcard): a key range would depend on the database's collation.
  const mine = `${tag}%`;
  await db.transaction().execute(async (trx) => {
    // Children first, so nothing references what goes; without the per-row foreign-key triggers (which
    // would scan the referencing tables once per deleted order) when the role may, as for the load.
    if (skipTriggers) await sql`set local session_replication_role = replica`.execute(trx);
    await trx.deleteFrom('refund_offers').where('order_no', 'like', mine).execute();
    await trx.deleteFrom('ticket_coupons').where('ticket_no', 'like', mine).execute();
    await trx.deleteFrom('tickets').where('order_no', 'like', mine).execute();
    await trx.deleteFrom('order_segments').where('order_no', 'like', mine).execute();
    await trx.deleteFrom('order_passengers').where('order_no', 'like', mine).execute();
    await trx.deleteFrom('orders').where('order_no', 'like', mine).execute();
  });
}

/** The tables plant() fills (and cleanUp() empties again on PostgreSQL). */
const PLANTED_TABLES = ['orders', 'order_passengers', 'order_segments', 'tickets', 'ticket_coupons', 'refund_offers'] as const;

/** Quotes random planted orders one after another; every answer must be status 0. Latencies in ms. */
async function quoteLatencies(ctx: BenchContext, body: (orderNo: string) => string, tag: string, planted: number, count: number): Promise<number[]> {
  const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const orderNo = `${tag}${Math.floor(Math.random() * planted)}`;
    const once = () => fetch(`${ctx.baseUrl}/refundQuotation.do`, { method: 'POST', headers, body: body(orderNo) });
    let started = performance.now();
    // After the minutes of a bulk load the kept-alive connection may have been closed by the server: one
    // retry on a fresh connection, timed from its own start.
    const res = await once().catch(() => {
      started = performance.now();
      return once();
    });
    const text = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 200 || !text.startsWith('{"status":0,')) throw new LoadFailure(`refundQuotation.do on planted order ${orderNo}: HTTP ${res.status} ${text.slice(0, 200)}`);
  }
  return times;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export const quoteScale: Measure = {
  id: 'quoteScale',
  name: 'refundQuotation.do median latency with 10⁶ orders in the store ÷ with 10³',
  target: { cmp: '<=', value: 1.3 },
  async run(ctx): Promise<MeasureOutcome> {
    const db = ctx.service.store.db;
    const large = largeSize(process.env);
    const template = (await db.selectFrom('orders').select('order_no').where('airline_pnr', '=', 'DEMO24').where('client_id', '=', 'demo-agency').executeTakeFirstOrThrow())
      .order_no;
    const dep = (flightId: string) => ctx.service.world.flights.get(flightId)!.current.dep.toFormat('yyyyMMdd');
    const items = JSON.stringify([
      {
        lastName: 'TWOTICKETS',
        firstName: 'TIA',
        refundReason: '1',
        segments: [
          { depDate: dep('XS101-out'), flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' },
          { depDate: dep('XS102-ret'), flightNo: 'XS102', depAirport: 'SGN', arrAirport: 'HND' },
        ],
      },
    ]);
    const body = (orderNo: string) => `{"orderNo":${JSON.stringify(orderNo)},"refundRequestList":${items}}`;
    // Not numeric like real order numbers, so a planted order can never be mistaken for a real one.
    const tag = `S${randomBytes(4).toString('hex').toUpperCase()}-`;
    const requests = Math.max(200, ctx.settings.seconds * 100);
    const figure = async (planted: number): Promise<{ times: number[]; result: LoadResult }> => {
      await sql`analyze`.execute(db); // what any bulk load is followed by (PGlite runs no autovacuum)
      await quoteLatencies(ctx, body, tag, planted, 200); // warm-up, not counted
      const meter = startCpuMeter();
      const started = performance.now();
      const times = await quoteLatencies(ctx, body, tag, planted, requests);
      const seconds = (performance.now() - started) / 1000;
      const cpu = meter(times.length);
      return {
        times,
        result: {
          label: `refundQuotation.do, ${planted.toLocaleString('en-US')} planted orders (sequential)`,
          rps: times.length / seconds,
          p50Ms: round2(median(times)),
          p99Ms: round2(percentile(times, 99)),
          requests: times.length,
          seconds: round2(seconds),
          ...cpu,
        },
      };
    };
    // Superusers only (PGlite always; PostgreSQL as the usual bench role); otherwise the triggers run.
    const { rows } = await sql<{ su: boolean }>`select rolsuper as su from pg_roles where rolname = current_user`.execute(db);
    const skipTriggers = rows[0]?.su === true;
    try {
      await plant(db, template, tag, 0, SMALL, skipTriggers);
      const small = await figure(SMALL);
      const loadStarted = performance.now();
      for (let from = SMALL; from < large; from += BATCH) {
        await plant(db, template, tag, from, Math.min(large, from + BATCH), skipTriggers);
        if ((from - SMALL) % (BATCH * 4) === 0) console.log(`  planted ${Math.min(large, from + BATCH).toLocaleString('en-US')} orders …`);
      }
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      console.log(`  planted ${large.toLocaleString('en-US')} orders in ${loadSeconds.toFixed(0)} s; measuring …`);
      const big = await figure(large);
      const ratio = median(big.times) / median(small.times);
      return {
        value: ratio,
        detail:
          `median ${median(big.times).toFixed(2)} ms with ${large.toLocaleString('en-US')} planted orders ÷ ${median(small.times).toFixed(2)} ms with ` +
          `${SMALL.toLocaleString('en-US')}, ${requests} sequential quotes of random planted orders each; bulk load ${loadSeconds.toFixed(0)} s`,
        loads: [small.result, big.result],
      };
    } finally {
      // The embedded store lives in a temporary folder that the bench removes.
      if (ctx.storeKind === 'postgres') await cleanUp(db, tag, skipTriggers);
      await settleTables(db, PLANTED_TABLES, 'planted', { full: true });
    }
  },
};
