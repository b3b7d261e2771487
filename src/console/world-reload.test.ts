// The sandbox panel's world reload is one transaction (src/console/world.ts): clients, booked orders, webhooks,
// the world's version and the audit row commit together. A failure at the last write leaves every earlier one
// undone and this process's world as it was (before: five transactions, and a failure between them left the
// clients changed, the orders made and the world not reloaded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { call, makeTestApp } from '../test-support/app.js';
import { refundWorld } from '../test-support/refund-world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { reloadWorld } from './world.js';
import { ActionRefused } from './actions.js';

const admin = { operatorId: 'op-1', login: 'ada.admin', role: 'admin' as const, disabled: false };

test('a reload whose last write fails changes nothing; the same reload then commits whole', async () => {
  const t = await makeTestApp({ world: refundWorld() });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-reload-'));
  try {
    // The file: a client renamed and one more booked booking (a new order)
    const raw = structuredClone<WorldFile>(t.world.raw);
    const client = raw.clients[0]!;
    client.name = 'Renamed by the reload';
    const booked = raw.bookings.find((b) => b.pnr === 'FAM001')!;
    raw.bookings.push({ ...structuredClone(booked), pnr: 'RLD001', tickets: booked.tickets!.map((x, i) => ({ ...x, ticketNo: `999-29999999${i}0` })) });
    const file = path.join(dir, 'world.json');
    fs.writeFileSync(file, JSON.stringify(raw));
    const deps = { db: t.store.db, worldPath: file, now: () => t.clock.now(), world: t.world, webhooks: null };
    const nameOf = async () => (await t.store.db.selectFrom('clients').select('name').where('client_id', '=', client.id).executeTakeFirstOrThrow()).name;
    const ordersOf = async () => (await t.store.db.selectFrom('orders').select('order_no').where('airline_pnr', '=', 'RLD001').execute()).length;
    const audits = async () => (await t.store.db.selectFrom('audit_log').select('id').where('action', '=', 'sandbox.world').execute()).length;
    const worldName = t.world.name;
    const nameBefore = await nameOf();

    // The world's version row refuses the write: the reload's last statement but the audit row
    await sql`create function refuse_world() returns trigger language plpgsql as $$ begin raise exception 'injected: the store refused the world row'; end $$`.execute(t.store.db);
    await sql`create trigger refuse_world before insert or update on sandbox_world for each row execute function refuse_world()`.execute(t.store.db);
    await assert.rejects(reloadWorld(deps, admin), (err: unknown) => !(err instanceof ActionRefused) && /injected/.test(String(err)));
    assert.equal(await nameOf(), nameBefore, 'the client not renamed');
    assert.equal(await ordersOf(), 0, 'no order made');
    assert.equal(await audits(), 0, 'no audit row');
    assert.equal(t.world.name, worldName);
    assert.equal([...t.world.bookings.values()].some((b) => b.record.pnr === 'RLD001'), false, 'this process serves the old world');

    await sql`drop trigger refuse_world on sandbox_world`.execute(t.store.db);
    const done = await reloadWorld(deps, admin);
    assert.equal(done.ordersCreated, 1);
    assert.equal(await nameOf(), 'Renamed by the reload');
    assert.equal(await ordersOf(), 1);
    assert.equal(await audits(), 1);
    assert.ok([...t.world.bookings.values()].some((b) => b.record.pnr === 'RLD001'), 'this process serves the new world');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  }
});

test('an airline a reload adds is served at once, and one it removes is no longer (a review: 99008 "not connected" until a restart)', async () => {
  const t = await makeTestApp({ world: refundWorld() });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-reload-'));
  try {
    const raw = structuredClone<WorldFile>(t.world.raw);
    // XQ leaves with its flight and booking; XY comes with the same booking under its code
    const xq = raw.airlines.find((a) => a.code === 'XQ')!;
    const flight = raw.flights.find((f) => f.carrier === 'XQ')!;
    const booking = raw.bookings.find((b) => b.pnr === 'NSV001')!;
    raw.airlines = raw.airlines.filter((a) => a !== xq).concat({ ...structuredClone(xq), code: 'XY', name: 'Added Air', supports: {} });
    raw.flights = raw.flights.filter((f) => f !== flight).concat({ ...structuredClone(flight), id: 'xy', carrier: 'XY', flightNumber: 'XY1' });
    raw.bookings = raw.bookings.filter((b) => b !== booking).concat({ ...structuredClone(booking), carrier: 'XY', pnr: 'ADD001', segments: [{ flight: 'xy' }], tickets: booking.tickets!.map((x) => ({ ...x, ticketNo: '111-2999999901' })) });
    const file = path.join(dir, 'world.json');
    fs.writeFileSync(file, JSON.stringify(raw));
    const passenger = booking.passengers[0]!;
    const extract = (carrier: string, airlinePnr: string) =>
      call(t.app, '/extractPnr.do', {
        airlinePnr,
        carrier,
        passengers: [{ firstName: passenger.firstName, lastName: passenger.lastName, passengerType: null }],
        contact: { email: booking.contact.email },
        routing: { fromSegments: [], retSegments: null },
        requestId: 'r-1',
      });
    assert.equal((await extract('XQ', 'NSV001')).body.status, 0, 'XQ served before the reload');
    assert.equal((await extract('XY', 'ADD001')).body.status, 99008, 'XY not connected before it');

    await reloadWorld({ db: t.store.db, worldPath: file, now: () => t.clock.now(), world: t.world, webhooks: null }, admin);
    const added = await extract('XY', 'ADD001');
    assert.equal(added.body.status, 0, String(added.body.msg));
    assert.equal((await extract('XQ', 'NSV001')).body.status, 99008, 'the removed airline is no longer connected');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  }
});
