// Chain sessions are deleted a day past their expiry by a sweep (src/booking/session-retention.ts; a review: the table
// gained a row per search routing and was never pruned), through their expiry's index; the console's list of live
// verify sessions and offers reads the newest through a partial index (migration 0037), not a scan of the table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { liveSeatSessions } from '../console/seatmaps.js';
import { sessionRetention, sessionsExpiredBefore } from './session-retention.js';

const HOUR = 3_600_000;
const client = TEST_CLIENTS.alpha.id;

describe('chain sessions past their retention', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  /** A session of `kind` that expired `expiredHours` ago (negative: expires in the future). */
  const plant = (id: string, kind: 'search' | 'verify' | 'offer', expiredHours: number) => {
    const expires = new Date(t.clock.now().getTime() - expiredHours * HOUR);
    return t.store.db
      .insertInto('booking_sessions')
      .values({ id, client_id: client, kind, carrier: 'XS', flight_key: 'XS101/20260105', itinerary: '{}', pax: JSON.stringify({ adults: 1, children: 0, infants: 0 }), expires_at: expires, created_at: new Date(expires.getTime() - HOUR) })
      .execute();
  };
  const left = async () => (await t.store.db.selectFrom('booking_sessions').select('id').where('id', 'like', 'ret-%').orderBy('id').execute()).map((r) => r.id);

  test('sessions a day past their expiry go, in batches; live and recently expired ones stay', async () => {
    for (let i = 0; i < 7; i++) await plant(`ret-old-${i}`, i % 3 === 0 ? 'search' : i % 3 === 1 ? 'verify' : 'offer', 25 + i);
    await plant('ret-recent', 'verify', 2);
    await plant('ret-live', 'offer', -1);
    const sweeper = sessionRetention({ db: t.store.db, clock: t.clock, queue: t.workers.queue, sweepSeconds: 60, batch: 3, log: { info: () => undefined } });
    assert.equal(await sweeper.sweep(), 7, 'three batches of at most 3');
    assert.deepEqual(await left(), ['ret-live', 'ret-recent']);
    // the workers' own sweep follows the sandbox clock: a day on, the recently expired one goes too
    t.clock.advance(23 * HOUR);
    assert.equal(await t.workers.sessionRetention.sweep(), 1);
    assert.deepEqual(await left(), ['ret-live']);
    await sql`delete from booking_sessions where id like 'ret-%'`.execute(t.store.db);
  });

  test('the sweep and the console\'s live sessions read through their indexes, not the whole table', async () => {
    await sql`
      insert into booking_sessions (id, client_id, kind, carrier, flight_key, itinerary, pax, expires_at, created_at)
        select 'plan-' || g, ${client}, case g % 3 when 0 then 'search' when 1 then 'verify' else 'offer' end, 'XS', 'XS101/20260105', '{}', '{}',
          now() - g * interval '1 min', now() - g * interval '1 min' - interval '30 min'
        from generate_series(1, 5000) g`.execute(t.store.db);
    await sql`analyze booking_sessions`.execute(t.store.db);
    const planOf = async (q: Compilable) => {
      const compiled = q.compile();
      const { rows } = await t.store.db.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]));
      return rows.map((r) => Object.values(r)[0]).join('\n');
    };
    const sweep = await planOf({ compile: () => sessionsExpiredBefore(new Date(Date.now() - 4000 * 60_000), 1000).compile(t.store.db) });
    assert.match(sweep, /booking_sessions_expires/, sweep);
    assert.doesNotMatch(sweep, /Seq Scan on booking_sessions/, sweep);
    const live = await planOf(liveSeatSessions(t.store.db, new Date(Date.now() - 600 * 60_000)));
    assert.match(live, /booking_sessions_seatable/, live);
    assert.doesNotMatch(live, /Seq Scan on booking_sessions/, live);
    await sql`delete from booking_sessions where id like 'plan-%'`.execute(t.store.db);
  });
});
