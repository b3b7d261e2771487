// Text from outside postbook made storable: NUL as U+FFFD, everything else as it was, the same object when clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storableDeep, storableText } from './text.js';

test('storableText: NUL as U+FFFD, cut to max', () => {
  assert.equal(storableText('a\u0000b\u0000'), 'a\uFFFDb\uFFFD');
  assert.equal(storableText('abcdef', 3), 'abc');
});

test('storableDeep: strings at any depth, Dates kept, the same objects when nothing holds NUL', () => {
  const at = new Date(0);
  const clean = { a: 'x', list: [{ b: 'y', at }], n: 1, none: null };
  assert.equal(storableDeep(clean), clean);
  const dirty = { a: 'x', list: [{ b: 'y\u0000', at }, { c: 'z' }], n: 1, none: null };
  const out = storableDeep(dirty);
  assert.deepEqual(out, { a: 'x', list: [{ b: 'y\uFFFD', at }, { c: 'z' }], n: 1, none: null });
  assert.equal(dirty.list[0]!.b, 'y\u0000', 'the given object is left as it was');
  assert.equal(out.list[0]!.at, at);
  assert.equal(out.list[1], dirty.list[1], 'clean parts are shared');
});
