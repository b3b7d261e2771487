// The bench's check of answers that differ from their reference only by a session binding (bench/harness.ts
// cycleOptions, the fresh-session seat map): it must pass the reference with any one binding throughout, and
// fail every other difference — a figure counts only answers that passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { cycleOptions } from '../bench/harness.js';

const require = createRequire(import.meta.url);

function checkOf(reference: string, binding: string) {
  const varying = [...reference.matchAll(new RegExp(binding, 'g'))].map((m) => m.index);
  const cycle = cycleOptions({ label: 't', url: 'http://127.0.0.1:1/', method: 'POST', headers: {} }, { bodies: ['{}'], reference, varying, varyingLength: binding.length });
  const check = require(cycle.options.verifyBody) as (body: string) => boolean;
  return { check, remove: cycle.remove };
}

test('an answer passes only when it is the reference but for one binding in every place of it', () => {
  const seat = (code: string, price: string) => `{"seat":"12A","price":"${price}","productCode":"SCI_SEAT_12A_XS_CDG_JFK_${code}"}`;
  const answer = (code: string, prices = ['10.00', '12.50']) => `{"status":0,"cabins":[${prices.map((p) => seat(code, p)).join(',')}]}`;
  const { check, remove } = checkOf(answer('AbCdEfGhIj'), 'AbCdEfGhIj');
  try {
    assert.equal(check(answer('AbCdEfGhIj')), true, 'the reference itself');
    assert.equal(check(answer('ZyXwVuTsRq')), true, 'another session, the same map');
    assert.equal(check(answer('ZyXwVuTsRq', ['10.00', '12.60'])), false, 'a price differs');
    assert.equal(check(answer('ZyXwVuTsRq').replace('ZyXwVuTsRq', 'ZyXwVuTsRr')), false, 'two bindings in one answer');
    assert.equal(check(answer('ZyXwVuTsRq').replace('"12A"', '"12Ł"')), false, 'a character beyond ASCII whose low byte is the reference one (Ł, U+0141, and A)');
    assert.equal(check(answer('ZyXwVuTsRq').replace('"12A"', '"12"')), false, 'shorter');
    assert.equal(check(`${answer('ZyXwVuTsRq')} `), false, 'longer');
  } finally {
    remove();
  }
});
