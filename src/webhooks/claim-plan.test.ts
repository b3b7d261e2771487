// The deliverer's claim of due events (decision 0022) under a backlog its table's statistics do not know of yet: a
// receiver down makes pending events pile up faster than the analyze threshold (50 + 10 % of the table's rows) is
// reached. Found by a review: the statistics then said no event was pending, the planner read every pending event
// once per pending event (the per-subject order check as an anti-join over the partial index of pending events,
// and the due events' re-check likewise), and a claim of 6,000 pending events over 100,000 delivered ones took 21 s —
// on the embedded store the whole process stood still meanwhile. The check is written so that no partial index of
// pending events can answer it (the state compared with the outer row's): read by subject, and by primary key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { CLAIM_DUE_SQL } from './deliverer.js';

let t: TestApp;
let client: string;
before(async () => {
  t = await makeTestApp({});
  const db = t.store.db;
  client = (await db.selectFrom('clients').select('client_id').orderBy('client_id').executeTakeFirstOrThrow()).client_id;
  await sql`insert into webhook_events (client_id, type, subject, order_no, to_status, data, occurred_at, state, next_attempt_at, delivered_at)
    select ${client}, 'order.refund', 'D' || g, 'O', 1, '{}'::jsonb, now(), 'delivered', now(), now() from generate_series(1, 20000) g`.execute(db);
  await sql`analyze webhook_events`.execute(db);
  // then the backlog, unknown to the statistics: 1,000 refunds with two events each, both due
  await sql`insert into webhook_events (client_id, type, subject, order_no, to_status, data, occurred_at, state, next_attempt_at)
    select ${client}, 'order.refund', 'P' || (g % 1000), 'O', g / 1000, '{}'::jsonb, now(), 'pending', now() - interval '1 minute'
    from generate_series(0, 1999) g`.execute(db);
});
after(() => t.close());

const args = () => [new Date(), 20, new Date(Date.now() + 30_000), [], [], 4, 200];

test('decision 0022: with statistics that know of no pending event, the claim reads by subject and by primary key, never every pending event per event', async () => {
  const plan = await t.store.db.executeQuery<{ 'QUERY PLAN': string }>({ sql: `explain ${CLAIM_DUE_SQL}`, parameters: args(), query: { kind: 'RawNode' } } as never);
  const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
  assert.doesNotMatch(text, /Anti Join/, text);
  assert.match(text, /webhook_events_subject_all/, text);
  assert.match(text, /Index Scan using webhook_events_pkey on webhook_events e_1|Index Cond: \(id = r\.id\)/, text);
});

test('decision 0022: the claim takes the first event of each refund only, at most the per-client cap', async () => {
  const claimed = await t.store.db.executeQuery<{ subject: string; to_status: number }>({ sql: CLAIM_DUE_SQL, parameters: args(), query: { kind: 'RawNode' } } as never);
  assert.equal(claimed.rows.length, 4);
  for (const e of claimed.rows) assert.equal(e.to_status, 0, `${e.subject}: its first event`);
  assert.equal(new Set(claimed.rows.map((e) => e.subject)).size, 4);
});
