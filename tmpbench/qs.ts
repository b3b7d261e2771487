// temporary: quote by list, then refund.do by the same list, one order after another (not committed)
import { call, makeTestApp } from '../src/test-support/app.js';
import { refundSegment, refundWorld } from '../src/test-support/refund-world.js';

const N = Number(process.env.N ?? 300);
const world = refundWorld();
const dep = world.bookings.find((b) => b.pnr === 'DEP001')!;
for (let i = 0; i < N; i++) {
  world.bookings.push({
    ...dep,
    pnr: `Q${String(i).padStart(5, '0')}`,
    passengers: [{ ref: 'p1', type: 'ADT' as const, lastName: 'SINGLE', firstName: 'SAM' }],
    tickets: [{ ticketNo: `999-8${String(i).padStart(8, '0')}1`, passenger: 'p1', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] }],
    postTicketingServices: [],
  });
}
const { default: pino } = await import('pino');
const t = await makeTestApp({ world, logger: pino({ level: 'silent' }) as never });
const orders = await t.store.db.selectFrom('orders').select(['order_no']).where('airline_pnr', 'like', 'Q0%').orderBy('airline_pnr').execute();
const seg = ['out', 'ret'].map((f) => refundSegment(t.world, f));
const times: number[] = [];
let cpu = 0;
for (const [n, o] of orders.entries()) {
  const body = { orderNo: o.order_no, refundRequestList: [{ lastName: 'SINGLE', firstName: 'SAM', refundReason: '1', segments: seg }] };
  const q = (await call(t.app, '/refundQuotation.do', body)).body as { status: number; msg: string };
  if (q.status !== 0) throw new Error(q.msg);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const s = (await call(t.app, '/refund.do', body)).body as { status: number; msg: string };
  const c = process.cpuUsage(c0);
  if (s.status !== 0) throw new Error(s.msg);
  if (n >= N / 3) {
    times.push(performance.now() - t0);
    cpu += c.user + c.system;
  }
}
times.sort((a, b) => a - b);
console.log(`submissions ${times.length}: median ${times[Math.floor(times.length / 2)]!.toFixed(2)} ms, process CPU ${(cpu / times.length / 1000).toFixed(2)} ms each`);
await t.close();
