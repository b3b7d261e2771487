// docs/architecture.md "Security": scrypt hashes, constant-time checks, rotation with a grace period, disabling.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestClock } from '../clock.js';
import { openTestStore } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import { AuthBusy, ClientAuthenticator, WAITING_VERIFICATIONS } from './auth.js';
import { createClient, findClient, RotationInGrace, rotateSecret, seedClients, setClientStatus } from './clients.js';
import { hashSecret, verifySecret } from './secrets.js';

let store: Store;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test('secrets are stored as scrypt hashes, never in plain', async () => {
  const clock = new TestClock();
  const secret = await createClient(store.db, 'cli-created', 'Created', clock.now());
  const row = await findClient(store.db, 'cli-created');
  assert.ok(row);
  assert.match(row.secret_hash, /^scrypt\$16384\$8\$1\$/);
  assert.ok(!row.secret_hash.includes(secret));
  assert.equal(await verifySecret(secret, row.secret_hash), true);
  assert.equal(await verifySecret(secret + 'x', row.secret_hash), false);
  assert.notEqual(await hashSecret(secret), await hashSecret(secret), 'salted');
});

test('rotation: the old secret works during the grace period, then stops', async () => {
  const clock = new TestClock();
  const old = await createClient(store.db, 'rotating', 'Rotating', clock.now());
  const auth = new ClientAuthenticator(store.db, clock);
  assert.ok(await auth.authenticate('rotating', old));
  const fresh = await rotateSecret(store.db, 'rotating', clock.now(), 3600_000);
  assert.ok(fresh);
  auth.invalidate('rotating');
  assert.ok(await auth.authenticate('rotating', fresh));
  assert.ok(await auth.authenticate('rotating', old), 'old secret inside the grace period');
  // a second rotation with a grace while the first one's runs is refused: it would end the old secret at once
  // (found by a review: a second click, or a retried lost answer, cut the original secret off)
  await assert.rejects(rotateSecret(store.db, 'rotating', clock.now(), 3600_000), (err: unknown) => err instanceof RotationInGrace && /grace of 0 hours/.test(err.message));
  auth.invalidate('rotating');
  assert.ok(await auth.authenticate('rotating', old), 'still inside its grace period');
  assert.ok(await auth.authenticate('rotating', fresh));
  clock.advance(3601_000);
  assert.equal(await auth.authenticate('rotating', old), null, 'old secret after the grace period');
  assert.ok(await auth.authenticate('rotating', fresh));
  // after the grace, a rotation with one is made again; inside it, one with no grace ends every older secret now
  const third = await rotateSecret(store.db, 'rotating', clock.now(), 3600_000);
  const fourth = await rotateSecret(store.db, 'rotating', clock.now(), 0);
  auth.invalidate('rotating');
  assert.ok(third && fourth);
  assert.equal(await auth.authenticate('rotating', fresh), null);
  assert.equal(await auth.authenticate('rotating', third), null, 'a rotation with no grace: the leaked secret ends now');
  assert.ok(await auth.authenticate('rotating', fourth));
});

test('a disabled client is refused; unknown ids and wrong secrets are refused alike', async () => {
  const clock = new TestClock();
  await seedClients(store.db, [{ id: 'seeded', name: 'Seeded', secret: 'seeded-secret-0001' }], clock.now());
  const auth = new ClientAuthenticator(store.db, clock);
  assert.ok(await auth.authenticate('seeded', 'seeded-secret-0001'));
  assert.equal(await auth.authenticate('seeded', 'wrong-secret-0001'), null);
  assert.equal(await auth.authenticate('nobody', 'seeded-secret-0001'), null);
  await setClientStatus(store.db, 'seeded', 'disabled', clock.now());
  auth.invalidate('seeded');
  assert.equal(await auth.authenticate('seeded', 'seeded-secret-0001'), null);
  // Re-seeding keeps the stored hash when the secret did not change.
  const before = (await findClient(store.db, 'seeded'))!.secret_hash;
  await seedClients(store.db, [{ id: 'seeded', name: 'Seeded', secret: 'seeded-secret-0001' }], clock.now());
  assert.equal((await findClient(store.db, 'seeded'))!.secret_hash, before);
});

test("a seed (a world reload) that changes a client's secret ends a rotation's grace period: the file's secret is the only one (found by a review)", async () => {
  const clock = new TestClock();
  await seedClients(store.db, [{ id: 'reseeded', name: 'Reseeded', secret: 'reseeded-secret-01' }], clock.now());
  const fresh = (await rotateSecret(store.db, 'reseeded', clock.now(), 3600_000))!;
  const auth = new ClientAuthenticator(store.db, clock);
  assert.ok(await auth.authenticate('reseeded', 'reseeded-secret-01'), 'in grace after the rotation');
  // the same secret again keeps the rotation as it is
  await seedClients(store.db, [{ id: 'reseeded', name: 'Reseeded', secret: fresh }], clock.now());
  auth.invalidate('reseeded');
  assert.ok(await auth.authenticate('reseeded', 'reseeded-secret-01'), 'a seed with the current secret keeps the grace');
  await seedClients(store.db, [{ id: 'reseeded', name: 'Reseeded', secret: 'reseeded-secret-02' }], clock.now());
  auth.invalidate('reseeded');
  assert.equal(await auth.authenticate('reseeded', 'reseeded-secret-01'), null, 'the secret in grace ends with the new file secret');
  assert.equal(await auth.authenticate('reseeded', fresh), null);
  assert.ok(await auth.authenticate('reseeded', 'reseeded-secret-02'));
});

test('concurrent requests of one client after its cache entry expired share one scrypt verification', async () => {
  const clock = new TestClock();
  await seedClients(store.db, [{ id: 'busy', name: 'Busy', secret: 'busy-secret-000001' }], clock.now());
  const auth = new ClientAuthenticator(store.db, clock, 50);
  const burst = async (secret: string) => Promise.all(Array.from({ length: 20 }, () => auth.authenticate('busy', secret)));
  assert.ok((await burst('busy-secret-000001')).every((c) => c?.clientId === 'busy'));
  assert.equal(auth.verificationsStarted, 1, 'a cold burst: one verification');
  await new Promise((resolve) => setTimeout(resolve, 80)); // the entry expires (TTL 50 ms)
  assert.ok((await burst('busy-secret-000001')).every((c) => c?.clientId === 'busy'));
  assert.equal(auth.verificationsStarted, 2, 'after expiry: one more, not twenty');
  // A wrong secret in a burst is refused for every caller, also with one verification.
  assert.ok((await burst('wrong-secret-00001')).every((c) => c === null));
  assert.equal(auth.verificationsStarted, 3);
  // invalidate() during a verification: the next caller verifies again instead of joining the old one.
  const first = auth.authenticate('busy', 'busy-secret-000002');
  auth.invalidate('busy');
  const second = auth.authenticate('busy', 'busy-secret-000002');
  assert.deepEqual(await Promise.all([first, second]), [null, null]);
  assert.equal(auth.verificationsStarted, 5);
});

test('a burst of new credentials (random secrets, unknown ids) waits for two verifications at a time; past the waiting cap it is refused at once (AuthBusy); a client this process verified before takes a lane of its own (decision 0006, amended: found by a review)', async () => {
  const clock = new TestClock();
  await seedClients(store.db, [{ id: 'steady', name: 'Steady', secret: 'steady-secret-00001' }], clock.now());
  // a TTL of 1 ms: the client's next request is verified again, as after its cache entry expired
  const auth = new ClientAuthenticator(store.db, clock, 1);
  assert.ok(await auth.authenticate('steady', 'steady-secret-00001'));
  await new Promise((resolve) => setTimeout(resolve, 5));
  // new pairs at once: two verify, WAITING_VERIFICATIONS wait, the rest are refused without a verification
  const total = WAITING_VERIFICATIONS + 2 + 30;
  const burst = Array.from({ length: total }, (_, i) =>
    auth.authenticate(i % 2 ? 'steady' : `nobody-${i}`, `random-secret-${i}`).then(
      (c) => (c === null ? 'refused' : 'accepted'),
      (err: unknown) => (err instanceof AuthBusy ? 'busy' : 'error'),
    ),
  );
  // meanwhile the real client, its entry expired, is verified in its own lane: not behind the burst
  const t0 = performance.now();
  assert.ok(await auth.authenticate('steady', 'steady-secret-00001'));
  const waited = performance.now() - t0;
  const outcomes = await Promise.all(burst);
  assert.equal(outcomes.filter((o) => o === 'busy').length, 30);
  assert.equal(outcomes.filter((o) => o === 'refused').length, WAITING_VERIFICATIONS + 2);
  assert.ok(waited < 2_000, `the known client waited ${Math.round(waited)} ms (the burst's verifications take ~${WAITING_VERIFICATIONS / 2} scrypt runs)`);
});

test('a known client whose cache entry expired is accepted on its row alone while the row keeps the hash it matched; a rotation, a disable or a grace ending is seen at once (a review: every re-check ran scrypt one at a time)', async () => {
  const clock = new TestClock();
  let runs = 0;
  const counting: typeof verifySecret = async (secret, hash) => {
    runs++;
    return verifySecret(secret, hash);
  };
  const old = await createClient(store.db, 'rechecked', 'Rechecked', clock.now());
  const auth = new ClientAuthenticator(store.db, clock, 1, counting);
  const expire = () => new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(await auth.authenticate('rechecked', old));
  assert.equal(runs, 1);
  for (let i = 0; i < 5; i++) {
    await expire();
    assert.ok(await auth.authenticate('rechecked', old));
  }
  assert.equal(runs, 1, 'five re-checks after expiry, no scrypt run');
  // a rotation with a grace: the old secret matched the hash now previous, still in grace — accepted, no run
  const fresh = (await rotateSecret(store.db, 'rechecked', clock.now(), 3600_000))!;
  await expire();
  assert.ok(await auth.authenticate('rechecked', old));
  assert.equal(runs, 1);
  clock.advance(3601_000);
  await expire();
  assert.equal(await auth.authenticate('rechecked', old), null, 'the grace ended');
  assert.ok(await auth.authenticate('rechecked', fresh));
  const afterFresh = runs;
  await expire();
  assert.ok(await auth.authenticate('rechecked', fresh));
  assert.equal(runs, afterFresh, 'the new secret known too');
  // a wrong secret with a known id still costs its two runs; a disable is seen on the next re-check
  assert.equal(await auth.authenticate('rechecked', 'not-the-secret-0001'), null);
  assert.equal(runs, afterFresh + 2);
  await store.db.updateTable('clients').set({ status: 'disabled' }).where('client_id', '=', 'rechecked').execute();
  await expire();
  assert.equal(await auth.authenticate('rechecked', fresh), null, 'disabled');
});

test('a secret in its grace period is cached as the current one, and still ends with its grace (service clock)', async () => {
  const clock = new TestClock();
  const old = await createClient(store.db, 'graceful', 'Graceful', clock.now());
  const fresh = await rotateSecret(store.db, 'graceful', clock.now(), 3600_000);
  assert.ok(fresh);
  const auth = new ClientAuthenticator(store.db, clock);
  for (let i = 0; i < 5; i++) assert.ok(await auth.authenticate('graceful', old));
  assert.equal(auth.verificationsStarted, 1, 'one verification, not one (of two scrypt runs) per request');
  clock.advance(3601_000);
  assert.equal(await auth.authenticate('graceful', old), null, 'the grace ended: refused although cached a moment ago');
});

test('a rotation with a grace and one without, at once (the CLI and the console): the secret before both never comes back (found by a review)', async () => {
  const clock = new TestClock();
  const leaked = await createClient(store.db, 'racing', 'Racing', clock.now());
  // the one without a grace first: read at the same time, the one with a grace used to write last, its previous
  // secret the leaked one for 24 h
  const outcomes = await Promise.allSettled([rotateSecret(store.db, 'racing', clock.now(), 0), rotateSecret(store.db, 'racing', clock.now(), 24 * 3600_000)]);
  assert.ok(outcomes.every((o) => o.status === 'fulfilled'), JSON.stringify(outcomes));
  const auth = new ClientAuthenticator(store.db, clock);
  assert.equal(await auth.authenticate('racing', leaked), null, 'the leaked secret ended by the rotation without a grace');
});

test('a wrong secret costs two scrypt runs whatever the id — unknown, known, or in a rotation grace (found by a review: an id in grace took twice as long to refuse; decision 0006)', async () => {
  const clock = new TestClock();
  let runs = 0;
  const counted: typeof verifySecret = (secret, hash) => {
    runs++;
    return verifySecret(secret, hash);
  };
  await createClient(store.db, 'timing-plain', 'Plain', clock.now());
  await createClient(store.db, 'timing-grace', 'Grace', clock.now());
  await rotateSecret(store.db, 'timing-grace', clock.now(), 3600_000);
  const auth = new ClientAuthenticator(store.db, clock, 30_000, counted);
  const costs: Record<string, number> = {};
  for (const id of ['timing-unknown', 'timing-plain', 'timing-grace']) {
    runs = 0;
    assert.equal(await auth.authenticate(id, `wrong-secret-of-${id}`), null);
    costs[id] = runs;
  }
  assert.deepEqual(costs, { 'timing-unknown': 2, 'timing-plain': 2, 'timing-grace': 2 });
});

test("a connection sending its last accepted pair again is accepted without a digest while the pair's cache entry stands; another secret, another id, invalidate() or the entry's expiry is checked as any request (decision 0006, amended 2026-12-03)", async () => {
  const clock = new TestClock();
  await seedClients(store.db, [{ id: 'kept-alive', name: 'Kept alive', secret: 'kept-alive-secret-01' }], clock.now());
  const auth = new ClientAuthenticator(store.db, clock);
  const connection = {};
  const other = {};
  // the first request verifies; the next one on the connection is accepted from the cache and remembered there
  assert.equal((await auth.authenticate('kept-alive', 'kept-alive-secret-01', connection))?.clientId, 'kept-alive');
  assert.equal(auth.cached('kept-alive', 'kept-alive-secret-01', connection)?.clientId, 'kept-alive');
  assert.equal(auth.acceptedAsLast, 0);
  assert.equal(auth.cached('kept-alive', 'kept-alive-secret-01', connection)?.clientId, 'kept-alive');
  assert.equal((await auth.authenticate('kept-alive', 'kept-alive-secret-01', connection))?.clientId, 'kept-alive');
  assert.equal(auth.acceptedAsLast, 2, 'the same pair on the same connection');
  // a wrong secret or an unknown id on that connection: refused as anywhere; another connection has its own
  assert.equal(auth.cached('kept-alive', 'kept-alive-secret-02', connection), null);
  assert.equal(await auth.authenticate('kept-alive', 'kept-alive-secret-02', connection), null);
  assert.equal(await auth.authenticate('nobody-here', 'kept-alive-secret-01', connection), null);
  assert.equal(auth.cached('kept-alive', 'kept-alive-secret-01', other)?.clientId, 'kept-alive');
  assert.equal(auth.acceptedAsLast, 2, "another connection's first request is digested");
  assert.ok(auth.cached('kept-alive', 'kept-alive-secret-01', connection));
  assert.equal(auth.acceptedAsLast, 3, "the refusals left the connection's pair as it was");
  // a disable seen by invalidate(): the connection's pair is refused at once
  await setClientStatus(store.db, 'kept-alive', 'disabled', clock.now());
  auth.invalidate('kept-alive');
  assert.equal(auth.cached('kept-alive', 'kept-alive-secret-01', connection), null);
  assert.equal(await auth.authenticate('kept-alive', 'kept-alive-secret-01', connection), null);
  await setClientStatus(store.db, 'kept-alive', 'active', clock.now());
  auth.invalidate('kept-alive');
  assert.ok(await auth.authenticate('kept-alive', 'kept-alive-secret-01', connection));
  assert.ok(auth.cached('kept-alive', 'kept-alive-secret-01', connection));
  // the entry's expiry (a TTL of 1 s, counted from the verification's start): verified again, not taken from the connection
  const shortLived = new ClientAuthenticator(store.db, clock, 1_000);
  assert.ok(await shortLived.authenticate('kept-alive', 'kept-alive-secret-01', connection));
  assert.ok(shortLived.cached('kept-alive', 'kept-alive-secret-01', connection));
  await new Promise((resolve) => setTimeout(resolve, 1_050));
  assert.equal(shortLived.cached('kept-alive', 'kept-alive-secret-01', connection), null);
  assert.ok(await shortLived.authenticate('kept-alive', 'kept-alive-secret-01', connection));
  assert.equal(shortLived.verificationsStarted, 2);
  assert.equal(shortLived.acceptedAsLast, 0);
});
