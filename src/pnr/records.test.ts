// Name comparison (spec 4.5 / 4.6: the record is shown to a caller who names its passengers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeName } from './records.js';

/** The full rule, without the ASCII shortcut: what every name must normalize to. */
const fullRule = (name: string) => name.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().replace(/[^\p{L}]/gu, '');

test('normalizeName: the ASCII shortcut gives what the full rule gives', () => {
  const names = ['REFUND', 'rui', 'Dupont', 'de la Cruz', "O'Brien", 'Anne-Marie', 'MÜLLER', 'Nguyễn', 'ﬁona', 'ǅani', '', 'A', 'z', 'ß', 'İlker', 'Ωmega', 'X Æ A-12'];
  for (const name of names) assert.equal(normalizeName(name), fullRule(name), name);
  assert.equal(normalizeName('de la Cruz'), 'DELACRUZ');
  assert.equal(normalizeName('Müller'), normalizeName('MULLER'));
  // every ASCII letter, both cases, in one name
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  assert.equal(normalizeName(letters), fullRule(letters));
});

test('normalizeName keeps the letters of every script (a review: only A–Z were kept, so other scripts were all "")', () => {
  assert.equal(normalizeName('Иванов'), 'ИВАНОВ');
  assert.equal(normalizeName('иванов'), normalizeName('ИВАНОВ'));
  assert.notEqual(normalizeName('Иванов'), normalizeName('Петров'));
  assert.equal(normalizeName('王 小明'), '王小明');
  assert.equal(normalizeName('Παπαδόπουλος'), normalizeName('ΠΑΠΑΔΟΠΟΥΛΟΣ'));
  assert.equal(normalizeName('---'), '');
  assert.equal(normalizeName("O'Brien-Smith"), 'OBRIENSMITH');
});
