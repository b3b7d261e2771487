// Idempotency-Key: a request that ran past ABANDONED_MS (5 min) may have its pending row taken over by a retry;
// its own answer then does not overwrite the retry's, nor does its failure delete the retry's row (found by a
// review: the final write and the release matched the key only).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestClock } from '../clock.js';
import { openTestStore } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { seedClients } from '../clients/clients.js';
import type { Store } from '../store/store.js';
import { Idempotency, type StoredAnswer } from './idempotency.js';

describe('Idempotency-Key: a request whose key was taken over', () => {
  let store: Store;
  const clock = new TestClock();
  let idem: Idempotency;
  before(async () => {
    store = await openTestStore();
    await seedClients(store.db, [{ id: TEST_CLIENTS.alpha.id, name: 'Alpha', secret: TEST_CLIENTS.alpha.secret }], clock.now());
    idem = new Idempotency(store.db, clock, 24 * 3_600_000, 200);
  });
  after(() => store.close());

  const args = (key: string) => ({ clientId: TEST_CLIENTS.alpha.id, endpoint: 'test.do', key, body: { n: 1 }, validationStatus: 100, busy: null });
  const final = () => true;
  const stored = async (key: string) =>
    (await store.db.selectFrom('idempotency_keys').select(['http_status', 'response']).where('idem_key', '=', key).executeTakeFirst()) ?? null;

  /** The first request's work: holds until `go` (past the abandonment time), then answers `answer` or fails. */
  const slow = (answer: StoredAnswer | Error) => {
    let go: () => void = () => undefined;
    const held = new Promise<void>((r) => (go = r));
    const work = async () => {
      await held;
      if (answer instanceof Error) throw answer;
      return answer;
    };
    return { work, go };
  };

  test("the slow first request's answer does not overwrite the retry's that took the key over", async () => {
    const first = slow({ httpStatus: 200, body: { status: 0, who: 'first' } });
    const running = idem.run(args('k-answer'), first.work, final);
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(5 * 60_000 + 1_000);
    const retry = await idem.run(args('k-answer'), async () => ({ httpStatus: 200, body: { status: 0, who: 'retry' } }), final);
    assert.deepEqual(retry.body, { status: 0, who: 'retry' });
    first.go();
    assert.deepEqual((await running).body, { status: 0, who: 'first' }, 'still answered to its own caller');
    assert.deepEqual((await stored('k-answer'))?.response, { status: 0, who: 'retry' }, 'the key replays the retry\'s answer');
    const again = await idem.run(args('k-answer'), async () => assert.fail('replayed, not run'), final);
    assert.deepEqual(again.body, { status: 0, who: 'retry' });
  });

  test("the slow first request's failure does not free the key the retry holds", async () => {
    const first = slow(new Error('the first failed'));
    const running = idem.run(args('k-fail'), first.work, final);
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(5 * 60_000 + 1_000);
    const second = slow({ httpStatus: 200, body: { status: 0, who: 'retry' } });
    const retrying = idem.run(args('k-fail'), second.work, final);
    await new Promise((r) => setTimeout(r, 50));
    first.go();
    await assert.rejects(running, /the first failed/);
    assert.equal((await stored('k-fail'))?.http_status, 0, "the retry's pending row stays");
    second.go();
    await retrying;
    assert.deepEqual((await stored('k-fail'))?.response, { status: 0, who: 'retry' });
  });

  test('an abandoned key is taken over by the same request only: another body under it is refused (found by a review: the take-over overwrote the request hash)', async () => {
    const first = slow({ httpStatus: 200, body: { status: 0, who: 'first' } });
    const running = idem.run(args('k-body'), first.work, final);
    await new Promise((r) => setTimeout(r, 50));
    clock.advance(5 * 60_000 + 1_000);
    await assert.rejects(
      idem.run({ ...args('k-body'), body: { n: 2 } }, async () => assert.fail('not run'), final),
      /already used with a different request body/,
    );
    const retry = await idem.run(args('k-body'), async () => ({ httpStatus: 200, body: { status: 0, who: 'retry' } }), final);
    assert.deepEqual(retry.body, { status: 0, who: 'retry' });
    first.go();
    await running;
  });

  test('a request that may have acted and failed leaves its key to the retry, which learns when it was claimed (found by a review: five minutes too early, a refund of another request answered)', async () => {
    const claimedAt = clock.now();
    await assert.rejects(idem.run({ ...args('k-acted'), mayHaveActed: true }, async () => assert.fail('failed after acting'), final));
    clock.advance(60_000);
    let resumedFrom: Date | null = null;
    const retry = await idem.run({ ...args('k-acted'), mayHaveActed: true }, async (progress) => {
      resumedFrom = progress.resumedFrom;
      return { httpStatus: 200, body: { status: 0 } };
    }, final);
    assert.deepEqual(retry.body, { status: 0 });
    // the failed request's own claim (the clock runs: a millisecond or so after claimedAt), not five minutes earlier
    const after = resumedFrom!.getTime() - claimedAt.getTime();
    assert.ok(after >= 0 && after < 1_000, `claimed ${after} ms after the test's reading`);
    // another body under the key while it waits abandoned: refused, not taken over
    await assert.rejects(idem.run({ ...args('k-acted2'), mayHaveActed: true }, async () => assert.fail('failed'), final));
    await assert.rejects(idem.run({ ...args('k-acted2'), body: { n: 2 } }, async () => assert.fail('not run'), final), /different request body/);
  });

  test('a take-over that fails in turn hands the note and the first claim time on to the next retry (found by a review: wiped at the take-over, the next order.do booked a second order, and refund.do kept 813 for its refund)', async () => {
    const firstClaim = clock.now();
    // the first request notes what it made (order.do: its order number), then fails
    await assert.rejects(
      idem.run(args('k-twice'), async (progress) => {
        await progress.note({ orderNo: 'O-1' });
        throw new Error('the answer could not be read');
      }, final),
    );
    clock.advance(1_000);
    const seen: Array<{ previous: unknown; resumedFrom: Date | null }> = [];
    // its first retry takes the key over, sees the note, and fails before writing anything
    await assert.rejects(
      idem.run(args('k-twice'), async (progress) => {
        seen.push({ previous: progress.previous, resumedFrom: progress.resumedFrom });
        throw new Error('the store still failing');
      }, final),
    );
    clock.advance(1_000);
    const retry = await idem.run(args('k-twice'), async (progress) => {
      seen.push({ previous: progress.previous, resumedFrom: progress.resumedFrom });
      return { httpStatus: 200, body: { status: 0, orderNo: 'O-1' } };
    }, final);
    assert.deepEqual(retry.body, { status: 0, orderNo: 'O-1' });
    assert.deepEqual(seen.map((x) => x.previous), [{ orderNo: 'O-1' }, { orderNo: 'O-1' }]);
    for (const x of seen) {
      const after = x.resumedFrom!.getTime() - firstClaim.getTime();
      assert.ok(after >= 0 && after < 1_000, `the first request's claim, not a retry's: ${after} ms after it`);
    }
    assert.deepEqual(await stored('k-twice'), { http_status: 200, response: { status: 0, orderNo: 'O-1' } });
    // an expired key is new again: nothing of its earlier life
    await assert.rejects(idem.run({ ...args('k-old'), mayHaveActed: true }, async () => assert.fail('failed after acting'), final));
    clock.advance(25 * 3_600_000);
    await idem.run(args('k-old'), async (progress) => {
      assert.deepEqual([progress.previous, progress.resumedFrom], [null, null]);
      return { httpStatus: 200, body: { status: 0 } };
    }, final);
  });
});
