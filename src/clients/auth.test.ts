// docs/architecture.md "Security": scrypt hashes, constant-time checks, rotation with a grace period, disabling.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestClock } from '../clock.js';
import { openTestStore } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import { ClientAuthenticator } from './auth.js';
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
