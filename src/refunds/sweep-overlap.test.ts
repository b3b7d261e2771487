// One sweep at a time in the whole deployment (decision 0035, src/jobs/queue.ts `stately`): on PostgreSQL, a
// second worker process started while the first one's sweep waits on a slow airline does not sweep the same
// due refunds again — before, the sweep's queue kept one sweep *waiting* only, and the second process ran one
// beside the first: one submission went to the airline twice, and one failed round counted twice. Found by a
// review.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { call, makeTestApp, openTestStore, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { ConnectorError } from '../airline/connector.js';
import { SandboxConnector, type SandboxBooks } from '../airline/sandbox/connector.js';
import type { World } from '../airline/sandbox/world.js';
import { TestClock } from '../clock.js';
import type { Store } from '../store/store.js';
import { waitFor } from '../test-support/wait.js';

const [lastA, firstA] = PLANTED.names;

describe('the refund sweep across two worker processes (PostgreSQL)', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL): one process holds the embedded store' }, () => {
  let store: Store;
  const schema = `jq_${process.pid}_${randomBytes(4).toString('hex')}`;
  const apps: TestApp[] = [];
  const calls: string[] = [];
  const failing = new Set<string>();
  const clock = new TestClock();
  /** The sandbox airline, 3 s per submission call; the refunds in `failing` answered as a failure. */
  const slowAirline = (w: World, books: SandboxBooks) => {
    const airline = new SandboxConnector(w, books);
    const submit = airline.submitRefunds.bind(airline);
    airline.submitRefunds = async (carrier, subs, opts) => {
      for (const s of subs) calls.push(s.refundCode);
      await new Promise((r) => setTimeout(r, 3_000));
      const answered = await submit(carrier, subs.filter((s) => !failing.has(s.refundCode)), opts);
      let i = 0;
      return subs.map((s) => (failing.has(s.refundCode) ? new ConnectorError('unavailable', true, 'airline down') : answered[i++]!));
    };
    return [airline];
  };
  before(async () => {
    store = await openTestStore();
  });
  after(async () => {
    for (const a of apps.reverse()) await a.close();
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
    await store.close();
  });

  test('a second process started during a sweep: every submission reaches the airline once, a failure counts once', async () => {
    const a = await makeTestApp({ store, jobSchema: schema, workers: true, world: refundWorld(), clock, connectors: slowAirline });
    apps.push(a);
    const orderNo = (pnr: string) => orderNoOfPnr(store.db, pnr);
    const refund = async (pnr: string, last: string, first: string, flights: string[]) => {
      const res = await call(a.app, '/refund.do', { orderNo: await orderNo(pnr), refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: flights.map((f) => refundSegment(a.world, f)) }] });
      assert.equal(res.body.status, 0, String(res.body.msg));
      return String(res.body.refundCode);
    };
    const ok = await refund('DEP001', lastA, firstA, ['out', 'ret']);
    const bad = await refund('BELOW1', 'BELOW', 'ANN', ['out']);
    failing.add(bad);
    await waitFor('the first sweep sends both', async () => calls.length >= 2);
    // process B starts (and queues a sweep) while A's sweep waits on the airline
    const b = await makeTestApp({ store, jobSchema: schema, workers: true, world: refundWorld(), clock, connectors: slowAirline });
    apps.push(b);
    await waitFor('the refund at 1', async () => (await store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', ok).executeTakeFirstOrThrow()).status === 1);
    // long enough for a second sweep started beside the first to have called the airline and answered
    await new Promise((r) => setTimeout(r, 4_500));
    assert.deepEqual(calls.filter((c) => c === ok), [ok], 'the airline got the submission once');
    const sent = await store.db.selectFrom('sandbox_refunds').select('submit_calls').where('refund_code', '=', ok).executeTakeFirstOrThrow();
    assert.equal(sent.submit_calls, 1);
    const failed = await store.db.selectFrom('refund_orders').select(['status', 'poll_failures']).where('refund_code', '=', bad).executeTakeFirstOrThrow();
    assert.deepEqual([failed.status, failed.poll_failures], [0, 1], 'one failed round, counted once');
  });
});
