// A sandbox world reloaded from the console (its flights' occupied seats changed in the file) is the world seat
// maps are answered from at once: a map read or kept before the reload is not served after it, though no seat
// was sold in between (the sandbox airline's seat map version names the world it was read from; decision 0014).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { call, makeTestApp, type TestApp } from '../src/test-support/app.js';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { createOperator } from '../src/console/operators.js';
import { PLANTED } from '../src/test-support/planted.js';
import { seatOf, seatSegments, verifyFlights, type Cabin } from '../src/test-support/booking.js';

const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../worlds/demo.yaml'), 'utf8')) as WorldFile;
const DEMO = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };
const PASSWORD = PLANTED.secrets[0];

describe('seat maps after a world reload', () => {
  let t: TestApp;
  let dir: string;
  let file: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-world-seats-'));
    file = path.join(dir, 'world.yaml');
    fs.writeFileSync(file, YAML.stringify(world));
    t = await makeTestApp({ world, env: { WORLD: file } });
    await createOperator(t.store.db, { login: 'ada.admin', password: PASSWORD, role: 'admin' }, new Date());
  });
  after(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const seatMap = async () => {
    const s = await verifyFlights(t, ['XS901-wide'], [], { adults: 1 }, DEMO);
    const res = await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['XS901-wide']) }, { client: DEMO });
    assert.equal(res.body.status, 0, res.body.msg as string);
    return res.body.cabins as Cabin[];
  };

  test('the reloaded file\'s occupied seats are answered, not the kept map of the world before', async () => {
    const before = await seatMap();
    assert.equal(seatOf(before, 1, '20A').seatStatus, 'O', 'the demo world occupies 20A');
    assert.equal(seatOf(before, 1, '21A').seatStatus, 'F');
    await seatMap(); // asked again: kept

    const edited = structuredClone(world);
    const flight = edited.flights.find((f) => f.id === 'XS901-wide')!;
    flight.occupiedSeats = ['21A'];
    fs.writeFileSync(file, YAML.stringify(edited));
    const login = await t.app.inject({ method: 'POST', url: '/console/api/login', payload: { login: 'ada.admin', password: PASSWORD } });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const reload = await t.app.inject({ method: 'POST', url: '/console/api/sandbox/world/reload', headers: { cookie, 'x-csrf-token': login.json().csrfToken as string }, payload: {} });
    assert.equal(reload.statusCode, 200, reload.body);

    const after = await seatMap();
    assert.equal(seatOf(after, 1, '20A').seatStatus, 'F', 'no longer occupied in the reloaded world');
    assert.equal(seatOf(after, 1, '21A').seatStatus, 'O', 'occupied in the reloaded world');
  });
});
