// gzip templates (decision 0043): an answer rendered from a template is a valid gzip member (gunzip checks its
// CRC-32 and length) of exactly the template with the values in place, for any values, wherever zlib wrote the
// sentinels (literals of fixed blocks, bytes of stored blocks, copies).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { GzipTemplate } from './gzip-template.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const sentinel = (first: number, length = 10) => Uint8Array.from({ length }, (_, i) => first + i);
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

/** A deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const alnum = (next: () => number, length: number) => Array.from({ length }, () => ALNUM[Math.floor(next() * ALNUM.length)]).join('');

/**
 * A seat-map-like JSON: `count` entries per part, each productCode ending in the part's binding (written into
 * the JSON as it is: JSON.stringify would escape a sentinel's control characters).
 */
function document(bindings: string[], count: number): string {
  const cabins = bindings.map((_, n) => ({
    segmentIndex: n + 1,
    seats: Array.from({ length: count }, (_, i) => ({ seat: `${1 + (i >> 3)}${'ABCDEFGH'[i & 7]}`, status: i % 5 === 0 ? 'O' : 'F', price: 1500 + (i % 3) * 250, productCode: `SCI_SEAT_${1 + (i >> 3)}${'ABCDEFGH'[i & 7]}_XS_HND_SGN_@${n}@` })),
  }));
  return JSON.stringify({ status: 0, msg: 'success', cabins }).replace(/@(\d)@/g, (_, n: string) => bindings[Number(n)]!);
}

function assertRenders(template: GzipTemplate, values: string[], expected: Buffer, label: string): void {
  const out = template.render(values.map((v) => Buffer.from(v, 'latin1')));
  assert.deepEqual([out[0], out[1], out[2]], [0x1f, 0x8b, 8], `${label}: a gzip member`);
  assert.ok(gunzipSync(out).equals(expected), `${label}: decompresses to the template with its values`);
  assert.equal(out.readUInt32LE(out.length - 8), crc32(expected), `${label}: CRC-32 of the answer`);
  assert.equal(out.readUInt32LE(out.length - 4), expected.length, `${label}: length of the answer`);
}

test('one sentinel repeated hundreds of times: every value in place, the CRC right, for 300 random values', () => {
  const s = sentinel(0);
  const template = GzipTemplate.build(Buffer.from(document([text(s)], 352), 'latin1'), [s]);
  assert.ok(template, 'a seat-map-like JSON can be spliced');
  assert.ok(template.deflatedLength < 4_000, `compressed: ${template.deflatedLength} bytes`);
  const next = random(7);
  for (let round = 0; round < 300; round++) {
    const b = alnum(next, 10);
    assertRenders(template, [b], Buffer.from(document([b], 352), 'latin1'), `value ${b}`);
  }
});

test('three sentinels, one per segment, each with its own value', () => {
  const sentinels = [sentinel(0), sentinel(10), sentinel(20)];
  const template = GzipTemplate.build(Buffer.from(document(sentinels.map(text), 120), 'latin1'), sentinels);
  assert.ok(template);
  const next = random(11);
  for (let round = 0; round < 100; round++) {
    const values = [alnum(next, 10), alnum(next, 10), alnum(next, 10)];
    assertRenders(template, values, Buffer.from(document(values, 120), 'latin1'), values.join(','));
  }
  // the same value in two segments is two values that happen to be equal
  assertRenders(template, ['aaaaaaaaaa', 'aaaaaaaaaa', 'Zz09Zz09Zz'], Buffer.from(document(['aaaaaaaaaa', 'aaaaaaaaaa', 'Zz09Zz09Zz'], 120), 'latin1'), 'equal values');
});

test('sentinels inside stored blocks (incompressible bytes around them) are written as bytes', () => {
  const next = random(3);
  const s = sentinel(0, 6);
  // bytes 144..255 cost 9 bits as fixed literals: zlib stores such a stretch as it is
  const noise = () => Buffer.from(Array.from({ length: 3000 }, () => 144 + Math.floor(next() * 112)));
  const parts = [noise(), Buffer.from(s), noise(), Buffer.from(s), noise()];
  const template = GzipTemplate.build(Buffer.concat(parts), [s]);
  assert.ok(template);
  const deflated = template.render([Buffer.from(s)]).subarray(10, -8);
  assert.equal(deflated[0]! & 0b110, 0, 'the stream begins with a stored block');
  for (const value of ['abcdef', 'Q1w2E3']) {
    const expected = Buffer.concat(parts.map((p) => (p.length === s.length ? Buffer.from(value, 'latin1') : p)));
    assertRenders(template, [value], expected, `stored ${value}`);
  }
});

test('rendered with the sentinels themselves it is the compressed template; the values are checked', () => {
  const s = sentinel(0);
  const plain = Buffer.from(document([text(s)], 40), 'latin1');
  const template = GzipTemplate.build(plain, [s])!;
  const out = template.render([s]);
  assert.ok(inflateRawSync(out.subarray(10, -8)).equals(plain));
  assert.throws(() => template.render([]), /one value per sentinel/);
  assert.throws(() => template.render([Buffer.from('short', 'latin1')]), /as long as its sentinel/);
  assert.throws(() => template.render([Buffer.from('abcdefghi\u00e9', 'latin1')]), /below 144/);
});

test('a template whose sentinel bytes also stand elsewhere is refused (null): it could not be spliced exactly', () => {
  const s = sentinel(0);
  const plain = Buffer.from(document([text(s)], 40), 'latin1');
  const stray = Buffer.concat([plain, Buffer.from([3])]); // the sentinel's fourth byte, outside a sentinel
  assert.equal(GzipTemplate.build(stray, [s]), null);
  const cut = plain.subarray(0, plain.lastIndexOf(Buffer.from(s)) + 5); // a sentinel cut short at the end
  assert.equal(GzipTemplate.build(cut, [s]), null);
  assert.throws(() => GzipTemplate.build(plain, [s, sentinel(5)]), /all different/);
  assert.throws(() => GzipTemplate.build(plain, [Uint8Array.of(150, 151)]), /below 144/);
});

test('sentinels at the very start and the very end of the template, and a template that is one sentinel', () => {
  const s = sentinel(0);
  for (const [before, after] of [['', '{"a":1}'], ['{"a":1}', ''], ['', '']]) {
    const template = GzipTemplate.build(Buffer.concat([Buffer.from(before!), s, Buffer.from('|x|'), s, Buffer.from(after!)]), [s]);
    assert.ok(template);
    for (const value of ['AAAAAAAAAA', 'z9z9z9z9z9']) assertRenders(template, [value], Buffer.from(`${before}${value}|x|${value}${after}`, 'latin1'), `${before}…${after} ${value}`);
  }
});
