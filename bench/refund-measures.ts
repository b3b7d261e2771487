// Refund measures of `npm run bench` (DESIGN "Performance targets"):
// - refundQuotation.do rps ÷ a route doing one primary-key SELECT on the same database;
// - refund.do committed submissions/s ÷ raw single-row INSERT transactions/s on the same database.
import { randomBytes, randomInt } from 'node:crypto';
import Fastify from 'fastify';
import { sql } from 'kysely';
import type { AddressInfo } from 'node:net';
import type { AirlineRecord } from '../src/airline/connector.js';
import { insertOrderFromRecord, newOrderNo } from '../src/orders/orders.js';
import { load, LoadFailure, type LoadRequest } from './harness.js';
import { formatRps, type BenchContext, type Measure, type MeasureOutcome } from './measures.js';

/** YYYYMMDD of a demo flight's departure, as the service resolved the world. */
function depDate(ctx: BenchContext, flightId: string): string {
  return ctx.service.world.flights.get(flightId)!.current.dep.toFormat('yyyyMMdd');
}

/** The yardstick: Fastify with one route doing a primary-key SELECT through the service's own store. */
async function startPkSelectRoute(ctx: BenchContext, orderNo: string) {
  const app = Fastify({ logger: false });
  app.post('/pk', async () => {
    const row = await ctx.service.store.db.selectFrom('orders').select(['order_no', 'status']).where('order_no', '=', orderNo).executeTakeFirst();
    return { status: 0, orderNo: row?.order_no ?? null, orderStatus: row?.status ?? null };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pk`, close: () => app.close() };
}

export const refundQuotation: Measure = {
  id: 'refundQuotation',
  name: 'refundQuotation.do rps ÷ a route doing one primary-key SELECT on the same database',
  target: { cmp: '>=', value: 0.5 },
  async run(ctx) {
    // DEMO24: one passenger with two tickets, booked through postbook by demo-agency.
    const order = await ctx.service.store.db.selectFrom('orders').select('order_no').where('airline_pnr', '=', 'DEMO24').executeTakeFirstOrThrow();
    const body = JSON.stringify({
      orderNo: order.order_no,
      refundRequestList: [
        {
          lastName: 'TWOTICKETS',
          firstName: 'TIA',
          refundReason: '1',
          segments: [
            { depDate: depDate(ctx, 'XS101-out'), flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' },
            { depDate: depDate(ctx, 'XS102-ret'), flightNo: 'XS102', depAirport: 'SGN', arrAirport: 'HND' },
          ],
        },
      ],
    });
    const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
    const yard = await startPkSelectRoute(ctx, order.order_no);
    const pkAnswer = JSON.stringify({ status: 0, orderNo: order.order_no, orderStatus: '2' });
    const countOffers = async () =>
      Number((await ctx.service.store.db.selectFrom('refund_offers').select((eb) => eb.fn.countAll().as('n')).where('order_no', '=', order.order_no).executeTakeFirstOrThrow()).n);
    try {
      const base = await load(ctx.settings, { label: 'primary-key SELECT route', url: yard.url, method: 'POST', headers, body: '{}', expectBody: pkAnswer });
      const before = await countOffers();
      const subject: LoadRequest = { label: 'refundQuotation.do', url: `${ctx.baseUrl}/refundQuotation.do`, method: 'POST', headers, body };
      const measured = await load(ctx.settings, subject);
      // Every answer differs (a new offer each time): each success stores exactly one offer, a failure none.
      const offers = (await countOffers()) - before;
      const answered = measured.requests;
      if (offers < answered) throw new LoadFailure(`refundQuotation.do: ${answered} answers in the counted run but only ${offers} offers stored: some quotes failed`);
      return {
        value: measured.rps / base.rps,
        detail: `refundQuotation.do ${formatRps(measured.rps)} req/s ÷ primary-key SELECT route ${formatRps(base.rps)} req/s, ${ctx.settings.seconds} s each`,
        loads: [base, measured],
      };
    } finally {
      await yard.close();
    }
  },
};

/** Runs `work` from `concurrency` loops for `seconds` (or until it returns false); returns completions/s. */
async function rate(seconds: number, concurrency: number, work: () => Promise<boolean>): Promise<{ perSecond: number; done: number; elapsed: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (!(await work())) return;
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: done / elapsed, done, elapsed };
}

export const refundSubmit: Measure = {
  id: 'refund',
  name: 'refund.do committed submissions/s ÷ raw single-row INSERT transactions/s on the same database',
  target: { cmp: '>=', value: 0.5 },
  async run(ctx): Promise<MeasureOutcome> {
    const db = ctx.service.store.db;
    const template = [...ctx.service.world.bookings.values()].find((b) => b.record.pnr === 'DEMO20')!.record;
    const estimate = Math.max(2000, ctx.settings.seconds * 600);
    // Orders to refund: copies of the walk-through booking (one adult, return, deposit), made in batches.
    const orders: string[] = [];
    const now = new Date();
    for (let batch = 0; batch < estimate / 200; batch++) {
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 200; i++) {
          const n = batch * 200 + i;
          // Unique per run (the PostgreSQL database is reused across runs): random locator and ticket numbers.
          const pnr = `Z${randomBytes(4).toString('hex').toUpperCase().slice(0, 7)}`;
          const record: AirlineRecord = {
            ...template,
            pnr,
            tickets: template.tickets.map((t, k) => ({ ...t, ticketNo: `8${String(randomInt(0, 1e9)).padStart(9, '0')}${String(n % 100).padStart(2, '0')}${k}`, ancillaries: [] })),
            bookedByClient: 'demo-agency',
          };
          const orderNo = newOrderNo();
          await insertOrderFromRecord(trx, { orderNo, clientId: 'demo-agency', source: 'booking', record, now });
          orders.push(orderNo);
        }
      });
    }
    const segments = [
      { depDate: depDate(ctx, 'XS101-out'), flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' },
      { depDate: depDate(ctx, 'XS102-ret'), flightNo: 'XS102', depAirport: 'SGN', arrAirport: 'HND' },
    ];
    const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
    let next = 0;
    let failures = 0;
    let firstFailure = '';
    const submit = async () => {
      const orderNo = orders[next++];
      if (!orderNo) return false;
      const res = await ctx.service.app.inject({
        method: 'POST',
        url: '/refund.do',
        headers,
        payload: JSON.stringify({ orderNo, refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '0', segments }] }),
      });
      const status = res.json<{ status: number }>().status;
      if (res.statusCode !== 200 || status !== 0) {
        failures++;
        firstFailure ||= res.body.slice(0, 200);
      }
      return true;
    };
    await sql`create table if not exists bench_insert (id bigint generated always as identity primary key, v text not null)`.execute(db);
    try {
      const insert = async () => {
        await db.transaction().execute((trx) => sql`insert into bench_insert (v) values (${'x'})`.execute(trx));
        return true;
      };
      const concurrency = 10;
      const base = await rate(ctx.settings.seconds, concurrency, insert);
      const measured = await rate(ctx.settings.seconds, concurrency, submit);
      if (failures > 0) throw new LoadFailure(`refund.do: ${failures} submissions were not status 0, e.g. ${firstFailure}`);
      if (measured.done === orders.length) {
        console.log(`refund.do: all ${orders.length} prepared orders were used in ${measured.elapsed.toFixed(1)} s (the rate is still exact)`);
      }
      const loadOf = (label: string, r: { perSecond: number; done: number; elapsed: number }) => ({
        label,
        rps: r.perSecond,
        p50Ms: 0,
        p99Ms: 0,
        requests: r.done,
        seconds: r.elapsed,
        othersCpu: 0,
      });
      return {
        value: measured.perSecond / base.perSecond,
        detail: `refund.do ${formatRps(measured.perSecond)} commits/s ÷ single-row INSERT ${formatRps(base.perSecond)} tx/s, ${concurrency} concurrent, in process, ${ctx.settings.seconds} s each`,
        loads: [loadOf('single-row INSERT tx', base), loadOf('refund.do (inject)', measured)],
      };
    } finally {
      await sql`drop table if exists bench_insert`.execute(db);
    }
  },
};
