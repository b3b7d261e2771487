// Webhooks across a crash (docs/webhooks.md, decision 0022): refunds are submitted and carried while the
// outbox is being delivered to a slow receiver on loopback; the server is killed with kill -9 between status
// changes and their deliveries, restarted on the same data, and the refunds finished. The receiver then holds
// exactly the events that happened (one per row of refund_status_history, none missing, none invented), each
// at least once, in order per refund; a repeated delivery carries the same event id and the same body.
import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openStore } from '../src/store/store.js';
import { migratedDataDir, startServer } from './support/processes.js';
import { cleanUp, crashSkip, DATABASE_URL, freshDatabase, post as postWith, sleep, tmpDir } from './support/crash.js';
import { CRASH_ADMIN_TOKEN, CRASH_CLIENT, CRASH_NAMES, crashBookings, crashRefundBody, crashWorld } from '../scripts/make-crash-world.js';
import { verifyWebhook, WebhookReceiver } from '../src/test-support/webhook-receiver.js';

const N = 40;
const PROCESSING_SECONDS = 3600;
const WEBHOOK_SECRET = 'crash-webhook-secret-0001';
const receiver = new WebhookReceiver();

after(async () => {
  await cleanUp();
  await receiver.down();
});

const HEADERS = { 'content-type': 'application/json', 'x-service-client-id': CRASH_CLIENT.id, 'x-service-client-secret': CRASH_CLIENT.secret };
const post = (url: string, pathName: string, body: unknown, headers: Record<string, string> = HEADERS) => postWith(url, pathName, body, headers);

async function waitUntil(what: string, fn: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** (previous, new) statuses the receiver holds per refund, first receipt of each event id. */
function receivedPaths(): Map<string, Array<[number | null, number]>> {
  const paths = new Map<string, Array<[number | null, number]>>();
  for (const e of receiver.events()) {
    const list = paths.get(e.data.refundCode) ?? [];
    list.push([e.data.previousRefundStatus, e.data.refundStatus]);
    paths.set(e.data.refundCode, list);
  }
  return paths;
}

describe('webhooks across a crash', () => {
  test(`${N} refunds: kill -9 while their events are being delivered; after a restart every event arrives, at least once, in order`, { skip: crashSkip, timeout: 300_000 }, async (ctx: TestContext) => {
    await receiver.up();
    receiver.delayMs = 100; // slow answers: deliveries are in flight at the kill
    const dir = tmpDir();
    const world = crashWorld({ bookings: N, processingSeconds: PROCESSING_SECONDS, latencyMs: 100 });
    world.clients[0]!.webhook = { url: receiver.url, secret: WEBHOOK_SECRET };
    const worldPath = path.join(dir, 'world.json');
    fs.writeFileSync(worldPath, JSON.stringify(world));
    const dataDir = path.join(dir, 'data');
    const databaseUrl = DATABASE_URL ? await freshDatabase() : null;
    const env: Record<string, string> = { WORLD: worldPath, REFUND_POLL_SECONDS: '1', SANDBOX: 'true', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: await migratedDataDir(dataDir) }) };

    // -- first life: submit, let deliveries start, kill -9 --
    const first = await startServer(env);
    const bookings = crashBookings(N);
    const answers = await Promise.all(bookings.map((b) => post(first.url, '/refund.do', crashRefundBody(b))));
    assert.ok(answers.every((a) => a.status === 0), JSON.stringify(answers.find((a) => a.status !== 0)));
    const codes = answers.map((a) => String(a.refundCode));
    await waitUntil('the first deliveries', () => receiver.received.length >= 10, 30_000);
    first.child.kill('SIGKILL');
    assert.equal((await first.exit).signal, 'SIGKILL');
    const atKill = receiver.events().length;
    ctx.diagnostic(`kill -9 with ${atKill} distinct events received (${N} refunds submitted)`);
    assert.ok(atKill < 2 * N, 'the kill came before every event was delivered');

    // -- second life: same data; finish the refunds --
    const second = await startServer(env);
    await sleep(2000);
    const moved = await post(second.url, '/sandbox/clock', { advanceMinutes: Math.ceil((2 * PROCESSING_SECONDS) / 60) + 1 }, {
      'content-type': 'application/json',
      authorization: `Bearer ${CRASH_ADMIN_TOKEN}`,
    });
    assert.ok(typeof moved.now === 'string', JSON.stringify(moved));
    const complete = () => {
      const paths = receivedPaths();
      return codes.every((c) => paths.get(c)?.length === 4);
    };
    // Refunds still at 0 when killed reach 1 later; the clock may need a second push for them.
    await waitUntil('every refund at 1 or beyond', () => codes.every((c) => (receivedPaths().get(c)?.length ?? 0) >= 2), 150_000);
    await post(second.url, '/sandbox/clock', { advanceMinutes: Math.ceil((2 * PROCESSING_SECONDS) / 60) + 1 }, { 'content-type': 'application/json', authorization: `Bearer ${CRASH_ADMIN_TOKEN}` });
    await waitUntil('every event of every refund', complete, 150_000);
    await sleep(1500); // a late duplicate, if any, lands before the count
    second.child.kill('SIGTERM');
    assert.equal((await second.exit).code, 0, second.stderr());

    // -- nothing secret or personal in the logs: names, the webhook secret, signatures --
    const logs = [first, second].map((p) => p.stdout() + p.stderr()).join('\n');
    for (const n of CRASH_NAMES.filter((x) => x.length >= 4)) assert.ok(!logs.includes(n), `a passenger name reached the log (${n.slice(0, 2)}…)`);
    assert.ok(!logs.includes(WEBHOOK_SECRET), 'the webhook secret reached the log');
    for (const r of receiver.received.slice(0, 20)) assert.ok(!logs.includes(String(r.headers['x-service-webhook-signature'])), 'a signature reached the log');
    assert.ok(second.lines().some((l) => l.msg === 'webhook delivered'), 'deliveries are logged');

    // -- what the receiver holds against what happened --
    for (const r of receiver.received) assert.ok(verifyWebhook(WEBHOOK_SECRET, r.headers, r.body), 'every delivery is signed');
    const bodies = new Map<string, string>();
    for (const r of receiver.received) {
      const id = JSON.parse(r.body).eventId as string;
      if (bodies.has(id)) assert.equal(r.body, bodies.get(id), 'a repeated delivery is the same event, byte for byte');
      bodies.set(id, r.body);
    }
    const store = await openStore(databaseUrl ? { databaseUrl, dataDir: null } : { databaseUrl: null, dataDir });
    try {
      const history = await store.db.selectFrom('refund_status_history').select(['refund_code', 'from_status', 'to_status']).orderBy('id').execute();
      const outbox = await store.db.selectFrom('webhook_events').select(['event_id', 'subject', 'state']).execute();
      assert.equal(outbox.length, history.length, 'one event per status change');
      assert.ok(outbox.every((e) => e.state === 'delivered'));
      assert.deepEqual(new Set(bodies.keys()), new Set(outbox.map((e) => e.event_id)), 'exactly the events that happened were received');
      const paths = receivedPaths();
      for (const code of codes) {
        const happened = history.filter((h) => h.refund_code === code).map((h) => [h.from_status, h.to_status]);
        assert.deepEqual(paths.get(code), happened, `refund ${code}: every change, in order`);
      }
      ctx.diagnostic(`${receiver.received.length} deliveries of ${outbox.length} events (${receiver.received.length - outbox.length} repeated)`);
    } finally {
      await store.close();
    }
  });
});
