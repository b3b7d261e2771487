// seatAvailability.do for a wide-body aircraft (XS901, 777 with 352 seats in two cabins) ÷ a bare route
// returning the same JSON (DESIGN target ≥ 0.6: seat maps are cached and invalidated on every sale).
import { referenceAnswer, rpsRatio, type Measure } from './measures.js';
import { startBareRoute } from './harness.js';

export const seatAvailability: Measure = {
  id: 'seatAvailability',
  name: 'seatAvailability.do, 300+-seat wide-body map, rps ÷ bare route returning the same JSON',
  target: { cmp: '>=', value: 0.6 },
  async run(ctx) {
    const flight = ctx.service.world.flights.get('XS901-wide')!;
    const depTime = flight.current.dep.toFormat('yyyyMMddHHmm');
    const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
    const segment = { carrier: 'XS', flightNumber: 'XS901', depAirport: flight.from, arrAirport: flight.to, depTime };
    const verify = await fetch(`${ctx.baseUrl}/verify.do`, { method: 'POST', headers, body: JSON.stringify({ adults: 1, fromSegments: [segment] }) });
    const session = (await verify.json()) as { status: number; sessionId?: string; msg?: string };
    if (session.status !== 0 || !session.sessionId) throw new Error(`verify.do for XS901 answered ${session.status}: ${session.msg}`);
    const body = JSON.stringify({
      sessionId: session.sessionId,
      carrier: 'XS',
      outboundSegments: [{ segmentIndex: 1, flightNumber: 'XS901', depAirport: flight.from, arrAirport: flight.to, depTime, cabinClass: 1 }],
    });
    const subject = { label: 'seatAvailability.do', url: `${ctx.baseUrl}/seatAvailability.do`, method: 'POST' as const, headers, body };
    const answer = await referenceAnswer(subject);
    const bare = await startBareRoute('POST', '/seatAvailability.do', answer);
    try {
      return await rpsRatio(ctx, { ...subject, label: `bare route (${Buffer.byteLength(answer)} B JSON)`, url: bare.url, expectBody: answer }, { ...subject, expectBody: answer });
    } finally {
      await bare.close();
    }
  },
};
