// Two API processes on one PostgreSQL database: each keeps seat maps as bytes in its own memory, and a seat
// sold through one shows occupied on the very next seatAvailability.do of the other (docs/architecture.md
// "Performance targets": cached seat maps are invalidated on every sale; spec 2.12 seatStatus F / O).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import path from 'node:path';
import { loadWorldFile } from '../src/airline/sandbox/world.js';
import { killChildren, ROOT, startServer } from './support/processes.js';

const DATABASE_URL = process.env.DATABASE_URL;
const HEADERS = {
  'content-type': 'application/json',
  'x-service-client-id': 'demo-agency',
  'x-service-client-secret': 'demo-agency-secret-2026',
};

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  return { http: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> & { status: number; msg: string } };
}

type Seat = { column: string; seatStatus: 'F' | 'O'; productCode: string };
type Cabin = { segmentIndex: number; cabin: { rows: Array<{ number: number; seats: Seat[] }> } };

function seat(cabins: Cabin[], name: string): Seat {
  for (const c of cabins) {
    const s = c.cabin.rows.find((r) => `${r.number}` === name.slice(0, -1))?.seats.find((x) => x.column === name.slice(-1));
    if (s) return s;
  }
  throw new Error(`no seat ${name}`);
}

describe('seat maps across two API processes (PostgreSQL)', { skip: DATABASE_URL ? false : 'needs DATABASE_URL (PostgreSQL)' }, () => {
  const schema = `seatproc_${process.pid}_${randomBytes(3).toString('hex')}`;
  after(async () => {
    killChildren();
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  });

  test('a seat sold through one process is occupied on the next map of the other, both ways', async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const url = `${DATABASE_URL}${DATABASE_URL!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const env = { DATABASE_URL: url };
    const a = await startServer(env);
    const b = await startServer(env);

    const f = xs901();
    const verify = await post(a.url, '/verify.do', {
      outboundSegments: [{ carrier: f.carrier, flightNumber: f.flightNumber.slice(2), departureAirport: f.depAirport, arrivalAirport: f.arrAirport, departureDate: f.depTime.slice(0, 8) }],
    });
    assert.equal(verify.body.status, 0, verify.body.msg);
    const sessionId = String(verify.body.sessionId);
    const segment = { segmentIndex: 1, ...(xs901()) };
    const { carrier, ...seatSegment } = segment;
    const mapOf = async (server: string) => {
      const res = await post(server, '/seatAvailability.do', { sessionId, carrier, outboundSegments: [seatSegment] });
      assert.equal(res.body.status, 0, res.body.msg);
      return res.body.cabins as Cabin[];
    };

    // Both processes have the map cached (asked twice), every seat below free.
    for (const server of [a.url, b.url, a.url, b.url]) {
      assert.equal(seat(await mapOf(server), '22B').seatStatus, 'F');
      assert.equal(seat(await mapOf(server), '23B').seatStatus, 'F');
    }

    for (const [seller, other, name] of [[a.url, b.url, '22B'], [b.url, a.url, '23B']] as const) {
      const code = seat(await mapOf(seller), name).productCode;
      const order = await post(seller, '/order.do', {
        sessionId,
        passengers: [{ name: 'SEATTEST/ONE', passengerType: 0, gender: 'F', birthday: '19900101', cardType: 'PP', cardNum: 'X1234567', cardExpired: '20991231', nationality: 'JP', ancillaries: [{ productCode: code, segmentIndex: 1 }] }],
        contact: { name: 'SEATTEST ONE', email: 'seat.test@example.com', mobile: null },
      });
      assert.equal(order.body.status, 0, order.body.msg);
      // The very next map of the other process shows it sold; so does the seller's.
      assert.equal(seat(await mapOf(other), name).seatStatus, 'O', `${name} sold through one process, asked of the other`);
      assert.equal(seat(await mapOf(seller), name).seatStatus, 'O', `${name} asked of the seller`);
    }
  });
});

/** XS901 of the demo world, resolved as the servers resolved it at their start (departures are relative). */
function xs901() {
  const f = loadWorldFile(path.join(ROOT, 'worlds/demo.yaml'), new Date()).flights.get('XS901-wide')!;
  return { carrier: f.carrier, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.current.dep.toFormat('yyyyMMddHHmm') };
}
