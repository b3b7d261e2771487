// The seat map cache: maps kept per inventory version, answers joined from fragments exactly as a whole
// serialization writes them, gzip of the same bytes (docs/architecture.md "Performance targets"; spec 2.12 productCode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import type { SeatMapAnswer, SeatMapCabin } from '../airline/connector.js';
import { SeatMapCache, type SeatAnswerPart, type Serialize } from './seat-cache.js';

const cabin = (occupied: string[]): SeatMapCabin => ({
  deck: 'Main',
  cabinClass: 1,
  columns: [{ designator: 'A', characteristics: 'W' }, { designator: 'B', characteristics: 'A' }],
  rows: { first: 1, last: 2 },
  exitRows: [],
  seatRows: [1, 2].map((n) => ({
    number: n,
    seats: ['A', 'B'].map((c) => ({ column: c, occupied: occupied.includes(`${n}${c}`), characteristics: ['W'], priceMinor: 1500, currency: 'EUR' })),
  })),
});

const serialize: Serialize = (body) => JSON.stringify(body);

function part(map: Awaited<ReturnType<SeatMapCache['map']>>, index: number, binding: string): SeatAnswerPart {
  if ('ok' in map) throw new Error('refused');
  return {
    map,
    signature: `${index}|XS|HND|SGN`,
    binding,
    wireCabins: (b) => map.cabins.map((c) => ({ segmentIndex: index, rows: c.seatRows.map((r) => r.seats.map((s) => ({ seat: `${r.number}${s.column}`, status: s.occupied ? 'O' : 'F', productCode: `SCI_SEAT_${r.number}${s.column}_XS_HND_SGN_${b}` }))) })),
  };
}

test('a map is reused while the airline reports its version, reloaded when the version moves', async () => {
  const cache = new SeatMapCache();
  let version = '0.1';
  let loads = 0;
  const load = async (): Promise<SeatMapAnswer> => {
    loads++;
    return { ok: true, cabins: [cabin(loads > 1 ? ['1A'] : [])], version };
  };
  const first = await cache.map('k', () => version, load);
  const again = await cache.map('k', () => version, load);
  assert.equal(loads, 1);
  assert.equal(again, first);
  version = '0.2'; // a sale
  const after = await cache.map('k', () => version, load);
  assert.equal(loads, 2);
  assert.ok(!('ok' in after) && after.cabins[0]!.seatRows[0]!.seats[0]!.occupied, 'the reloaded map shows the sold seat');
});

test('concurrent misses of one key at one version share one load; a failed load leaves the key free (a review: 20 concurrent requests made 20 loads)', async () => {
  const cache = new SeatMapCache();
  let loads = 0;
  let fail = false;
  const load = async (): Promise<SeatMapAnswer> => {
    loads++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (fail) throw new Error('the airline did not answer');
    return { ok: true, cabins: [cabin([])], version: '0.1' };
  };
  const maps = await Promise.all(Array.from({ length: 20 }, () => cache.map('k', () => '0.1', load)));
  assert.equal(loads, 1);
  assert.ok(maps.every((m) => m === maps[0]));
  // a version read asynchronously (PostgreSQL) shares the load too
  const other = await Promise.all(Array.from({ length: 20 }, () => cache.map('k2', async () => '0.1', load)));
  assert.equal(loads, 2);
  assert.ok(other.every((m) => m === other[0]));
  // a rejected load: every caller sharing it sees the failure, the next request loads again
  fail = true;
  const failed = await Promise.allSettled(Array.from({ length: 5 }, () => cache.map('k3', () => '0.1', load)));
  assert.equal(loads, 3);
  assert.ok(failed.every((r) => r.status === 'rejected'));
  fail = false;
  const retried = await cache.map('k3', () => '0.1', load);
  assert.equal(loads, 4, 'the failure did not stay in flight');
  assert.ok(!('ok' in retried));
  // a version the airline cannot tell is not shared (each request reads the map)
  await Promise.all(Array.from({ length: 3 }, () => cache.map('k4', () => null, load)));
  assert.equal(loads, 7);
});

test('a slower load of an older version never replaces the map a later load kept', async () => {
  const cache = new SeatMapCache();
  let version = '0.1';
  const slow = cache.map('k', () => version, async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { ok: true, cabins: [cabin([])], version: '0.1' };
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  version = '0.2'; // a sale while the first load is out
  const fast = await cache.map('k', () => version, async () => ({ ok: true, cabins: [cabin(['1A'])], version: '0.2' }));
  const old = await slow;
  assert.ok(!('ok' in fast) && !('ok' in old));
  assert.equal(old.version, '0.1', 'the slower caller gets what it read');
  let loads = 0;
  const kept = await cache.map('k', () => version, async () => {
    loads++;
    return { ok: true, cabins: [cabin(['1A'])], version };
  });
  assert.equal(loads, 0, 'the newer map stayed');
  assert.equal(kept, fast);
});

test('the maps are bounded by their bytes, fragments included, not only by their number (found by a review: 5,000 wide-body maps could hold half a gigabyte)', async () => {
  const probe = new SeatMapCache();
  const one = await probe.map('probe', () => '0.1', async () => ({ ok: true, cabins: [cabin([])], version: '0.1' }));
  assert.ok(!('ok' in one));
  const objects = probe.mapStoreBytes;
  assert.equal(objects, one.bytes);
  assert.equal(objects, 4 * 160 + 2 * 64, '4 seats, 2 rows');
  probe.bytes([part(one, 1, 'probeprob1')], false, serialize);
  const withFragment = probe.mapStoreBytes;
  assert.ok(withFragment > objects, 'the fragment counts');
  assert.equal(one.bytes, withFragment);

  // room for three maps with their fragments and a fourth map's objects, not its fragment
  const cache = new SeatMapCache(undefined, 3 * withFragment + objects + 10);
  let loads = 0;
  const load = async (): Promise<SeatMapAnswer> => (loads++, { ok: true, cabins: [cabin([])], version: '0.1' });
  for (const key of ['a', 'b', 'c']) {
    const m = await cache.map(key, () => '0.1', load);
    cache.bytes([part(m, 1, `${key.repeat(9)}1`)], false, serialize);
  }
  assert.deepEqual([cache.mapCount, cache.mapStoreBytes, loads], [3, 3 * withFragment, 3]);
  // a version moved: the old map's bytes leave with it
  const moved = await cache.map('a', () => '0.2', async () => (loads++, { ok: true, cabins: [cabin(['1A'])], version: '0.2' }));
  assert.deepEqual([cache.mapCount, cache.mapStoreBytes], [3, 2 * withFragment + objects]);
  cache.bytes([part(moved, 1, 'aaaaaaaaa2')], false, serialize);
  // a fourth map with its fragment passes the bound: the store is emptied, and what is asked again is read again
  const d = await cache.map('d', () => '0.1', load);
  assert.equal(cache.mapCount, 4);
  cache.bytes([part(d, 1, 'ddddddddd1')], false, serialize);
  assert.deepEqual([cache.mapCount, cache.mapStoreBytes], [0, 0]);
  await cache.map('b', () => '0.1', load);
  assert.deepEqual([cache.mapCount, cache.mapStoreBytes, loads], [1, objects, 6]);
  // a map not kept (no version) counts nothing
  await cache.map('n', () => null, async () => ({ ok: true, cabins: [cabin([])], version: null }));
  assert.deepEqual([cache.mapCount, cache.mapStoreBytes], [1, objects]);
});

test('a map read while the airline cannot tell its version is never reused; refusals are not kept', async () => {
  const cache = new SeatMapCache();
  let loads = 0;
  await cache.map('k', () => null, async () => (loads++, { ok: true, cabins: [cabin([])], version: null }));
  await cache.map('k', () => null, async () => (loads++, { ok: true, cabins: [cabin([])], version: null }));
  assert.equal(loads, 2);
  const refused = await cache.map('r', () => '0.1', async () => (loads++, { ok: false, reason: 'selectionFailed', message: 'no map' }));
  assert.ok('ok' in refused);
  await cache.map('r', () => '0.1', async () => (loads++, { ok: false, reason: 'selectionFailed', message: 'no map' }));
  assert.equal(loads, 4);
});

test('bytes joined from fragments equal a whole serialization, per binding; gzip holds the same bytes', async () => {
  const cache = new SeatMapCache();
  const one = await cache.map('k1', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const two = await cache.map('k2', () => '0.4', async () => ({ ok: true, cabins: [cabin([]), cabin(['1A'])], version: '0.4' }));
  for (const [b1, b2] of [['aaaaaaaaa1', 'bbbbbbbbb1'], ['ccccccccc2', 'ddddddddd2']]) {
    const parts = [part(one, 1, b1!), part(two, 2, b2!)];
    const expected = serialize({ status: 0, msg: 'success', cabins: parts.flatMap((p) => p.wireCabins(p.binding)) });
    const plain = cache.bytes(parts, false, serialize);
    assert.equal(plain.bytes.toString(), expected);
    assert.equal(plain.gzip, false);
    // Kept from the second request on (most sessions ask once): the third gets the bytes of the second.
    const zipped = cache.bytes(parts, true, serialize);
    assert.equal(zipped.gzip, true);
    assert.equal(gunzipSync(zipped.bytes).toString(), expected);
    const third = cache.bytes(parts, false, serialize);
    assert.equal(third.bytes.toString(), expected);
    assert.equal(third.release, undefined, 'a kept answer is never given back for reuse');
    assert.equal(cache.bytes(parts, false, serialize).bytes, third.bytes, 'the same session again: the stored bytes');
    assert.ok(plain.release, 'a first answer is written into a reusable buffer');
  }
});

test('a reused buffer is taken again only after it was given back', async () => {
  const cache = new SeatMapCache();
  const one = await cache.map('k1', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const a = cache.bytes([part(one, 1, 'aaaaaaaaa1')], false, serialize);
  const b = cache.bytes([part(one, 1, 'bbbbbbbbb1')], false, serialize);
  assert.notEqual(a.bytes, b.bytes, 'not given back yet: another buffer');
  const aText = a.bytes.toString();
  a.release!();
  const c = cache.bytes([part(one, 1, 'ccccccccc1')], false, serialize);
  assert.equal(c.bytes, a.bytes, 'given back: reused');
  assert.equal(c.bytes.toString(), aText.replaceAll('aaaaaaaaa1', 'ccccccccc1'), 'and written whole for the new answer');
  assert.ok(b.bytes.toString().includes('bbbbbbbbb1'));
  a.release!(); // a second call of the same release does nothing: c still uses that buffer
  const d = cache.bytes([part(one, 1, 'ddddddddd1')], false, serialize);
  assert.notEqual(d.bytes, c.bytes, 'a buffer in use is never handed out');
  assert.ok(c.bytes.toString().includes('ccccccccc1'));
});

test('spare buffers are bounded in bytes: beyond 8 MB, given-back buffers are left to the garbage collector', async () => {
  const cache = new SeatMapCache();
  const one = await cache.map('k1', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const answer = (i: number) => cache.bytes([part(one, 1, `b${String(i).padStart(9, '0')}`)], false, serialize);
  const size = answer(0).bytes.length;
  const count = Math.ceil((10 * 1024 * 1024) / size); // 10 MB of answers, all in flight at once
  const held = Array.from({ length: count }, (_, i) => answer(i + 1));
  for (const a of held) a.release!();
  assert.ok(cache.spareBufferBytes <= 8 * 1024 * 1024, `${cache.spareBufferBytes} bytes held`);
  assert.ok(cache.spareBufferBytes > 8 * 1024 * 1024 - size, 'filled up to the bound');
});

test('the answer store stays within its bound when a kept answer gains its gzip: least recently used out first', async () => {
  const probe = new SeatMapCache();
  const map = await probe.map('k', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const size = probe.bytes([part(map, 1, 'sizesizes1')], false, serialize).bytes.length;
  // room for two plain answers, not for two and a gzip
  const cache = new SeatMapCache(2 * size + 10);
  const kept = await cache.map('k', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const [a, b] = [[part(kept, 1, 'aaaaaaaaa1')], [part(kept, 1, 'bbbbbbbbb1')]];
  for (const parts of [a, b, a, b]) cache.bytes(parts, false, serialize); // each kept from its second request
  assert.equal(cache.answerStoreBytes, 2 * size, 'both kept');
  const zipped = cache.bytes(a, true, serialize);
  assert.equal(zipped.gzip, true);
  assert.ok(cache.answerStoreBytes <= 2 * size + 10, `over the bound: ${cache.answerStoreBytes}`);
  assert.equal(cache.answerStoreBytes, size + zipped.bytes.length, 'b (least recently used) left; a kept with its gzip');
  const hitsBefore = cache.stats.answerHits;
  cache.bytes(a, true, serialize);
  assert.equal(cache.stats.answerHits, hitsBefore + 1, 'a is still kept');
});

test('gzip answers come from one template per maps and versions: any session, kept or not, the same bytes (decision 0043)', async () => {
  const cache = new SeatMapCache();
  let version = '0.1';
  let occupied = ['2B'];
  const load = async (): Promise<SeatMapAnswer> => ({ ok: true, cabins: [cabin(occupied), cabin(['1A'])], version });
  const other = await cache.map('k2', () => '0.4', async () => ({ ok: true, cabins: [cabin([])], version: '0.4' }));
  const expected = (parts: SeatAnswerPart[]) => serialize({ status: 0, msg: 'success', cabins: parts.flatMap((p) => p.wireCabins(p.binding)) });
  const sessions = (n: number) => Array.from({ length: n }, (_, i) => `s${String(i).padStart(5, '0')}Zz09`);
  const first = new Map<string, Buffer>();
  for (const b of sessions(40)) {
    const parts = [part(await cache.map('k1', () => version, load), 1, b), part(other, 2, b.split('').reverse().join(''))];
    const zipped = cache.bytes(parts, true, serialize);
    assert.equal(zipped.gzip, true);
    assert.equal(gunzipSync(zipped.bytes).toString(), expected(parts), `session ${b}`);
    first.set(b, zipped.bytes);
  }
  assert.deepEqual([cache.stats.gzipTemplatesMade, cache.stats.gzipSpliced, cache.stats.gzipCompressed], [1, 40, 0], 'one template, 40 answers from it');
  // the same session again: its answer is kept from now on, with the same gzip bytes as its first
  for (const b of sessions(3)) {
    const parts = [part(await cache.map('k1', () => version, load), 1, b), part(other, 2, b.split('').reverse().join(''))];
    for (let ask = 0; ask < 2; ask++) assert.ok(cache.bytes(parts, true, serialize).bytes.equals(first.get(b)!), `session ${b}, ask ${ask}`);
  }
  // a sale: a new version, a new template, the seat occupied in every session's answer
  version = '0.2';
  occupied = ['2B', '1A'];
  const parts = [part(await cache.map('k1', () => version, load), 1, 's00000Zz09'), part(other, 2, '90zZ00000s')];
  const after = gunzipSync(cache.bytes(parts, true, serialize).bytes).toString();
  assert.equal(after, expected(parts));
  assert.ok(after.includes('"seat":"1A","status":"O"'), 'the sold seat is occupied');
  assert.equal(cache.stats.gzipTemplatesMade, 2);
  assert.equal(cache.gzipTemplateCount, 1, "the new version's template replaced the old one's");
});

test('a gzip answer with a segment of no cabins between two others: each segment keeps its own binding', async () => {
  const cache = new SeatMapCache();
  const one = await cache.map('k1', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const none = await cache.map('k0', () => '0.1', async () => ({ ok: true, cabins: [], version: '0.1' }));
  const three = await cache.map('k3', () => '0.2', async () => ({ ok: true, cabins: [cabin(['1A'])], version: '0.2' }));
  for (const [a, b, c] of [['aaaaaaaaa1', 'bbbbbbbbb2', 'ccccccccc3'], ['ddddddddd1', 'eeeeeeeee2', 'fffffffff3']]) {
    const parts = [part(one, 1, a!), part(none, 2, b!), part(three, 3, c!)];
    const text = gunzipSync(cache.bytes(parts, true, serialize).bytes).toString();
    assert.equal(text, serialize({ status: 0, msg: 'success', cabins: parts.flatMap((p) => p.wireCabins(p.binding)) }));
    assert.ok(text.includes(`_${a}"`) && text.includes(`_${c}"`) && !text.includes(b!), `${a} ${c}`);
  }
  assert.deepEqual([cache.stats.gzipTemplatesMade, cache.stats.gzipSpliced], [1, 2]);
});

test('gzip answers without a template are compressed one by one: more segments than sentinels, a map of no version', async () => {
  const cache = new SeatMapCache();
  const kept = await cache.map('k', () => '0.1', async () => ({ ok: true, cabins: [cabin(['2B'])], version: '0.1' }));
  const unversioned = await cache.map('n', () => null, async () => ({ ok: true, cabins: [cabin(['1B'])], version: null }));
  for (const parts of [[1, 2, 3, 4].map((i) => part(kept, i, `abcdefghi${i}`)), [part(unversioned, 1, 'abcdefghij')]]) {
    const zipped = cache.bytes(parts, true, serialize);
    assert.equal(gunzipSync(zipped.bytes).toString(), serialize({ status: 0, msg: 'success', cabins: parts.flatMap((p) => p.wireCabins(p.binding)) }));
  }
  assert.deepEqual([cache.stats.gzipTemplatesMade, cache.stats.gzipSpliced, cache.stats.gzipCompressed], [0, 0, 2]);
});
