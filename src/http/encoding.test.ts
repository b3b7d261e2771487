// Accept-Encoding as the spec's callers send it (spec: request headers, `Accept-Encoding: gzip`), read as RFC
// 9110 §12.5.3 says: `*` stands for the codings the header does not name, q=0 refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsGzip, explicitCodings } from './encoding.js';

test('`*` written out as the codings it stands for: only those the header does not name, with its q', () => {
  assert.equal(explicitCodings('gzip'), 'gzip', 'no `*`: the header as it is');
  assert.equal(explicitCodings('*'), 'gzip, deflate');
  assert.equal(explicitCodings('gzip;q=0, *'), 'gzip;q=0, deflate');
  assert.equal(explicitCodings('deflate;q=0,*;q=0.5'), 'deflate;q=0, gzip;q=0.5');
  assert.equal(explicitCodings('*;q=0'), 'gzip;q=0, deflate;q=0');
  assert.equal(explicitCodings('br, X-GZIP;q=0, *'), 'br, X-GZIP;q=0, deflate', 'x-gzip is gzip');
  assert.equal(explicitCodings('gzip, deflate, *'), 'gzip, deflate', 'both named: `*` adds nothing');
});

test('gzip is accepted by name or by `*`, never when refused by name', () => {
  for (const header of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*', 'deflate, *']) {
    assert.equal(acceptsGzip(header), true, header);
    assert.equal(acceptsGzip(explicitCodings(header)), true, `${header}, written out`);
  }
  for (const header of ['gzip;q=0', 'gzip;q=0, *', '*;q=0', 'deflate', 'identity', '']) {
    assert.equal(acceptsGzip(header), false, header);
    assert.equal(acceptsGzip(explicitCodings(header)), false, `${header}, written out`);
  }
  // kept by header text: asked again, the same answers; a header past the kept length is read each time
  for (const [header, accepted] of [['gzip, deflate', true], ['gzip;q=0, *', false], [`${'x-custom;q=0.1, '.repeat(14)}gzip`, true], [`${'x-custom;q=0.1, '.repeat(14)}gzip;q=0`, false]] as const) {
    assert.equal(acceptsGzip(header), accepted, header);
    assert.equal(acceptsGzip(header), accepted, `${header}, again`);
  }
});
