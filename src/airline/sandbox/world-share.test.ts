// The sandbox world shared by the processes of one PostgreSQL store (src/airline/sandbox/world-share.ts): a world
// another process records while this one starts is followed only once this one has written and recorded its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminHeaders, makeTestApp, openTestStore } from '../../test-support/app.js';
import { TEST_CLIENTS, testWorld } from '../../test-support/world.js';
import { buildWorld } from './world.js';
import { recordWorldReload } from './world-share.js';
import { SANDBOX_WEBHOOK_KEY, webhookKeyring } from '../../webhooks/secret.js';
import { TestClock } from '../../clock.js';

// A review: the follower ran from the start's beginning; another API process's record, followed mid-start, put the
// stored copy's placeholders in this one's world — the webhooks' signing secrets sealed as "(not stored …)", the
// admin routes' token null (401 for good).
test('a world another API process records during this start: the file\'s webhook secret is sealed, the admin token kept; then followed', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL: one process stands in for two on one PostgreSQL' }, async () => {
  const store = await openTestStore();
  const w = testWorld();
  const SECRET = 'whsec_the-file-secret-0123456789';
  w.clients[0]!.webhook = { url: 'http://127.0.0.1:9/hook', secret: SECRET };
  // clients enough that the start's seeding (scrypt each) lasts past the other process's record
  for (let i = 0; i < 40; i++) w.clients.push({ id: `extra-${i}`, name: `Extra ${i}`, secret: `extra-secret-${i}-0123456789` });
  const clock = new TestClock();
  const elsewhere = structuredClone(w);
  elsewhere.name = 'the other process\'s world';
  const other = setTimeout(() => void recordWorldReload(store.db, buildWorld(elsewhere, clock.now()), clock.now(), 'process-B'), 300);
  const t = await makeTestApp({ world: w, store, clock });
  clearTimeout(other);
  try {
    const row = await store.db.selectFrom('clients').select('webhook_secret').where('client_id', '=', TEST_CLIENTS.alpha.id).executeTakeFirstOrThrow();
    assert.equal(webhookKeyring(SANDBOX_WEBHOOK_KEY).open(row.webhook_secret!), SECRET, 'the file\'s secret');
    // a record after this start's own is followed, the admin token kept
    await recordWorldReload(store.db, buildWorld(elsewhere, clock.now()), clock.now(), 'process-B');
    const deadline = Date.now() + 10_000;
    while (t.world.name !== elsewhere.name) {
      assert.ok(Date.now() < deadline, 'followed within seconds');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/sandbox/clock', headers: adminHeaders })).statusCode, 200);
    assert.ok(t.world.adminToken, 'the admin token kept');
  } finally {
    await t.close();
    await store.close();
  }
});
