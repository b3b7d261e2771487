// Refund measures of `npm run bench` (docs/architecture.md "Performance targets"):
// - refundQuotation.do rps ÷ a route doing one primary-key SELECT on the same database
//   (refund.do submissions and the backlog: submit-measures.ts).
import { fetchOnce, loadAbba, LoadFailure, startPkSelectRoute, type LoadRequest } from './harness.js';
import { formatRps, type BenchContext, type Measure } from './measures.js';
import { preparedQuery } from '../src/store/prepared.js';

/** The yardstick's one primary-key SELECT. */
const pkSelect = preparedQuery<{ order_no: string; status: string }>('bench_pk_select', 'select order_no, status from orders where order_no = $1');

/** YYYYMMDD of a demo flight's departure, as the service resolved the world. */
function depDate(ctx: BenchContext, flightId: string): string {
  return ctx.service.world.flights.get(flightId)!.current.dep.toFormat('yyyyMMdd');
}

export const refundQuotation: Measure = {
  id: 'refundQuotation',
  name: 'refundQuotation.do rps ÷ a route doing one primary-key SELECT on the same database',
  target: { cmp: '>=', value: 0.5 },
  // ~1 min from the reference quote to the last answer checked against it
  sameDayMinutes: 10,
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
    // A named prepared statement, as the service's own hot reads are (src/store/prepared.ts): PGlite would parse and
    // plan a plain text at every call, ~200 µs the quotes never pay (a review of the bench: the PGlite row overstated)
    const yard = await startPkSelectRoute(async () => {
      const row = (await ctx.service.store.db.executeQuery(pkSelect([order.order_no]))).rows[0];
      return { status: 0, orderNo: row?.order_no ?? null, orderStatus: row?.status ?? null };
    });
    const pkAnswer = JSON.stringify({ status: 0, orderNo: order.order_no, orderStatus: '2' });
    const countOffers = async () =>
      Number((await ctx.service.store.db.selectFrom('refund_offers').select((eb) => eb.fn.countAll().as('n')).where('order_no', '=', order.order_no).executeTakeFirstOrThrow()).n);
    try {
      const yardstick: LoadRequest = { label: 'primary-key SELECT route', url: yard.url, method: 'POST', headers, body: '{}', expectBody: pkAnswer };
      const request = { url: `${ctx.baseUrl}/refundQuotation.do`, method: 'POST' as const, headers, body };
      // Every answer checked: the reference quote but for its new refundOfferId (a review: the answers were counted
      // unread, an error answer with HTTP 200 among them)
      const reference = await fetchOnce(request);
      const status = (JSON.parse(reference.text) as { status?: unknown }).status;
      if (reference.http !== 200 || status !== 0) throw new LoadFailure(`refundQuotation.do: the reference quote answered HTTP ${reference.http}, status ${String(status)}`);
      const subject: LoadRequest = { label: 'refundQuotation.do', ...request, masked: { reference: reference.text, mask: '"refundOfferId":"rfo_[A-Za-z0-9_-]+"' } };
      let before = 0;
      let offers = 0;
      const [base, measured] = await loadAbba(ctx.settings, yardstick, subject, {
        beforeSubject: async () => void (before = await countOffers()),
        afterSubject: async () => void (offers = (await countOffers()) - before),
      });
      // Every answer differs (a new offer each time): each success stores exactly one offer, a failure none.
      const answered = measured.requests;
      if (offers < answered) throw new LoadFailure(`refundQuotation.do: ${answered} answers in the counted run but only ${offers} offers stored: some quotes failed`);
      return {
        value: measured.rps / base.rps,
        detail: `refundQuotation.do ${formatRps(measured.rps)} req/s ÷ primary-key SELECT route ${formatRps(base.rps)} req/s, ${ctx.settings.seconds} s each in two halves (A B B A)`,
        loads: [base, measured],
      };
    } finally {
      await yard.close();
    }
  },
};

