// The bench's checks of answers (bench/harness.ts): those that differ from their reference only by a session
// binding (cycleOptions, the fresh-session seat map) must pass the reference with any one binding throughout and
// fail every other difference; gzip answers (gzipOptions) must be one of the expected gzip bodies (as the text
// autocannon decodes them to).
// A figure counts only answers that passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { cycleOptions, gzipOptions } from '../bench/harness.js';

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

test('a gzip answer passes only when it is one of the expected gzip bodies', () => {
  const zip = (text: string) => gzipSync(text, { level: 1 });
  const expected = [zip('{"status":0,"seat":"12A_AbCdEfGhIj"}'), zip('{"status":0,"seat":"12A_ZyXwVuTsRq"}')];
  const gzip = gzipOptions({ label: 't', url: 'http://127.0.0.1:1/', method: 'POST', headers: {} }, { answers: expected });
  try {
    const check = require(gzip.options.verifyBody) as (body: string) => boolean;
    // autocannon hands a body over as the text of its bytes (`body += chunk`: the chunk's UTF-8 decoding)
    const asReceived = (bytes: Buffer) => bytes.toString();
    assert.equal(check(asReceived(expected[0]!)), true, 'the first expected answer');
    assert.equal(check(asReceived(expected[1]!)), true, 'the second');
    assert.equal(check(asReceived(zip('{"status":0,"seat":"12A_AbCdEfGhIk"}'))), false, 'another answer');
    assert.equal(check(asReceived(gzipSync('{"status":0,"seat":"12A_AbCdEfGhIj"}', { level: 9 }))), false, 'the same JSON compressed otherwise');
    assert.equal(check('{"status":0,"seat":"12A_AbCdEfGhIj"}'), false, 'the JSON uncompressed');
    assert.equal(check(asReceived(expected[0]!.subarray(0, -1))), false, 'shorter');
  } finally {
    gzip.remove();
  }
});
