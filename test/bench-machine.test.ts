// The bench's reading of the machine (bench/harness.ts loopbackRoundTripUs), written beside the CPU in every row of
// BENCHMARKS.md: a loopback TCP round trip in µs, measured by echoing a byte between two sockets of this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackRoundTripUs } from '../bench/harness.js';

/** The TCP sockets and servers keeping this process alive (Node's public list of its active resources). */
const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap' || r === 'TCPServerWrap').length;

test('the loopback round trip is a time a round trip can take, and the probe closes what it opened', async () => {
  const before = sockets();
  const started = process.hrtime.bigint();
  const us = await loopbackRoundTripUs();
  const elapsedUs = Number(process.hrtime.bigint() - started) / 1000;
  assert.ok(Number.isFinite(us) && us > 0, `a positive time, got ${us}`);
  // the three counted rounds at or above the median took 5,000 round trips of at least `us` each: together no longer
  // than the whole call
  assert.ok(us * 15_000 <= elapsedUs, `${us} µs a round trip against ${elapsedUs} µs for the call`);
  // no socket or server of it is left to keep the process alive (the test runner's own are there before and after;
  // a closed handle leaves the list on the event loop's next turn)
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(sockets(), before);
});
