// Seat inventory versions read from the store (books shared by several API processes, decision 0014):
// concurrent requests share one read, and a request that arrives while a read is in flight waits for the
// next one — so it sees every sale committed before it arrived, never an older version.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { openTestStore } from '../../test-support/app.js';
import type { Store } from '../../store/store.js';
import { SeatInventory } from './seat-inventory.js';

let store: Store;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

/** Holds each read's answer, after the read ran, until the gate opens: the read stays "in flight". */
class HeldReads extends SeatInventory {
  private opened: Promise<void> = Promise.resolve();
  private open_: () => void = () => undefined;
  private started_: () => void = () => undefined;
  /** Resolves when the next read has begun (reads start a turn of the event loop after their first request). */
  started: Promise<void> = Promise.resolve();
  close(): void {
    this.opened = new Promise((resolve) => (this.open_ = resolve));
    this.started = new Promise((resolve) => (this.started_ = resolve));
  }
  open(): void {
    this.open_();
  }
  protected override async versionsIn(db: Kysely<Database>, flightKeys: string[]): Promise<Map<string, number>> {
    this.started_();
    const versions = await super.versionsIn(db, flightKeys);
    await this.opened;
    return versions;
  }
}

/** The store-read path always answers a promise (books shared). */
const current = (inventory: SeatInventory, flightKey: string): Promise<string> => Promise.resolve(inventory.current(flightKey));
const sell = (inventory: SeatInventory, flightKey: string) => store.db.transaction().execute((trx) => inventory.bump(trx, flightKey));

test('concurrent version requests share reads; one arriving during a read waits for the next and sees the sale', async () => {
  // On PostgreSQL through the store's own connection for these reads, as the service reads them.
  const inventory = new HeldReads(store.db, true, store.hotReader ?? null);
  const gate = inventory;
  await sell(inventory, 'XS1|2027-01-01');
  assert.equal(await current(inventory, 'XS1|2027-01-01'), '1');
  const readsBefore = inventory.versionReads;

  gate.close();
  const early = current(inventory, 'XS1|2027-01-01'); // its read is held in flight
  await gate.started; // (the embedded store can commit a sale within one turn of the event loop)
  await sell(inventory, 'XS1|2027-01-01'); // a sale commits (another process, as far as the reader knows)
  const late = Array.from({ length: 20 }, () => current(inventory, 'XS1|2027-01-01')); // arrive during the held read
  const other = current(inventory, 'XS2|2027-01-01'); // another flight joins the same next read
  gate.open();
  assert.ok(['1', '2'].includes(await early), 'the early request may see either version');
  assert.deepEqual(new Set(await Promise.all(late)), new Set(['2']), 'every later request sees the committed sale');
  assert.equal(await other, '0', 'a flight never sold is at version 0');
  assert.equal(inventory.versionReads - readsBefore, 2, 'two reads for 22 requests: the held one and the next');
});

test('requests made in one turn of the event loop share one read, started after that turn (decision 0014)', async () => {
  const inventory = new SeatInventory(store.db, true, store.hotReader ?? null);
  await sell(inventory, 'XS5|2027-01-01');
  const readsBefore = inventory.versionReads;
  const asked = ['XS5|2027-01-01', 'XS6|2027-01-01', 'XS5|2027-01-01'].map((key) => current(inventory, key));
  assert.equal(inventory.versionReads, readsBefore, 'no read begins within the turn the requests are made in');
  assert.deepEqual(await Promise.all(asked), ['1', '0', '1']);
  assert.equal(inventory.versionReads - readsBefore, 1, 'one read for the three');
});

test('a failed read fails its waiting requests and the next request reads again', async () => {
  const inventory = new SeatInventory(store.db, true, store.hotReader ?? null);
  const broken = new (class extends SeatInventory {
    protected override async versionsIn(): Promise<Map<string, number>> {
      throw new Error('connection lost');
    }
  })(store.db, true, store.hotReader ?? null);
  await assert.rejects(Promise.all([current(broken, 'XS3|2027-01-01'), current(broken, 'XS3|2027-01-01')]), /connection lost/);
  assert.equal(await current(inventory, 'XS3|2027-01-01'), '0');
});
