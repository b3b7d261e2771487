// Group commit (src/store/group-commit.ts, decisions 0016 and 0018): batching, the order of statements and
// callers, and failures that fail their own caller only. The writes here are functions that record what they
// were handed; the statements of the refund paths that use them are tested with their stores elsewhere.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupCommitter } from './group-commit.js';

/** A write that records each batch and lets the test end it when it chooses. */
function controlledWrite() {
  const batches: number[][] = [];
  const enders: Array<{ ok: () => void; fail: (err: unknown) => void }> = [];
  const write = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...items]);
      enders.push({ ok: () => resolve(items.map((i) => i * 10)), fail: reject });
    });
  return { batches, enders, write };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('group commit', () => {
  test('items handed in during one turn share one statement, each caller gets its own result', async () => {
    const w = controlledWrite();
    const g = new GroupCommitter<number, number>(w.write);
    const results = Promise.all([g.write(1), g.write(2), g.write(3)]);
    await turn();
    assert.deepEqual(w.batches, [[1, 2, 3]]);
    w.enders[0]!.ok();
    assert.deepEqual(await results, [10, 20, 30]);
  });

  test('items handed in while a statement runs go into the next one, at most maxBatch each', async () => {
    const w = controlledWrite();
    const g = new GroupCommitter<number, number>(w.write, { maxBatch: 2 });
    const first = g.write(1);
    await turn();
    const later = [g.write(2), g.write(3), g.write(4)];
    assert.deepEqual(w.batches, [[1]], 'nothing more starts while a statement runs');
    w.enders[0]!.ok();
    assert.equal(await first, 10);
    await turn();
    assert.deepEqual(w.batches, [[1], [2, 3]]);
    w.enders[1]!.ok();
    await turn();
    assert.deepEqual(w.batches, [[1], [2, 3], [4]]);
    w.enders[2]!.ok();
    assert.deepEqual(await Promise.all(later), [20, 30, 40]);
  });

  test('the next statement is sent before the callers of the one that ended resume', async () => {
    const events: string[] = [];
    const enders: Array<() => void> = [];
    const g = new GroupCommitter<string>((items) => {
      events.push(`statement ${items.join(',')}`);
      return new Promise<void>((resolve) => enders.push(resolve));
    });
    const a = g.write('a').then(() => events.push('caller a resumed'));
    await turn();
    const b = g.write('b').then(() => events.push('caller b resumed'));
    enders[0]!();
    await a;
    // Without the overlap the order would be: statement a, caller a resumed, statement b.
    assert.deepEqual(events, ['statement a', 'statement b', 'caller a resumed']);
    enders[1]!();
    await b;
    assert.deepEqual(events.slice(3), ['caller b resumed']);
  });

  test('a failed statement of several: each item alone, and only the failing one\'s caller sees the error', async () => {
    const seen: number[][] = [];
    const g = new GroupCommitter<number, number>(async (items) => {
      seen.push([...items]);
      if (items.includes(2)) throw new Error(`cannot write 2 (batch ${items.join(',')})`);
      return items.map((i) => i * 10);
    });
    const outcomes = await Promise.allSettled([g.write(1), g.write(2), g.write(3)]);
    assert.deepEqual(seen, [[1, 2, 3], [1], [2], [3]]);
    assert.deepEqual(outcomes[0], { status: 'fulfilled', value: 10 });
    assert.equal(outcomes[1].status, 'rejected');
    assert.match(String(outcomes[1].reason), /cannot write 2 \(batch 2\)/);
    assert.deepEqual(outcomes[2], { status: 'fulfilled', value: 30 });
  });

  test("afterFailure 'all': a failed statement fails each of its callers with its error, nothing is tried again", async () => {
    const seen: number[][] = [];
    const g = new GroupCommitter<number, number>(
      async (items) => {
        seen.push([...items]);
        if (items.includes(2)) throw new Error('store unreachable');
        return items.map((i) => i * 10);
      },
      { afterFailure: 'all' },
    );
    const outcomes = await Promise.allSettled([g.write(1), g.write(2), g.write(3)]);
    assert.deepEqual(seen, [[1, 2, 3]]);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : o.value)),
      ['Error: store unreachable', 'Error: store unreachable', 'Error: store unreachable'],
    );
    assert.equal(await g.write(4), 40, 'the next item is read again');
  });

  test('a lone item whose statement fails is rejected once, not written again; later items still go through', async () => {
    let calls = 0;
    const g = new GroupCommitter<number, number>(async (items) => {
      calls++;
      if (items[0] === 1) throw new Error('no');
      return items.map((i) => i + 1);
    });
    await assert.rejects(g.write(1), /no/);
    assert.equal(calls, 1);
    assert.equal(await g.write(5), 6);
  });

  test('a batch after a failed one is sent once the failed batch was written one by one', async () => {
    const seen: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const g = new GroupCommitter<number, number>(async (items) => {
      seen.push([...items]);
      if (items.length === 2 && items[0] === 1) {
        await gate;
        throw new Error('conflict');
      }
      return items.map((i) => i);
    });
    const firsts = Promise.allSettled([g.write(1), g.write(2)]);
    await turn();
    const thirds = Promise.all([g.write(3), g.write(4)]);
    release();
    assert.deepEqual((await firsts).map((o) => o.status), ['fulfilled', 'fulfilled']);
    assert.deepEqual(await thirds, [3, 4]);
    assert.deepEqual(seen, [[1, 2], [1], [2], [3, 4]]);
  });
});
