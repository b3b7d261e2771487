// The service's own identifiers that grow with time (decision 0061): order numbers, refund codes and offer ids. A
// new row's index entries then land at the right edge of each index, beside the entries written just before,
// instead of on a random leaf page of every index it touches.
import { randomFillSync, randomInt } from 'node:crypto';

/** Digits after the time: a counter within the millisecond. */
const SUFFIX_DIGITS = 7;
const SUFFIX_END = 10 ** SUFFIX_DIGITS;
/** A new millisecond's counter starts at random below this, so that at least 5·10⁶ ids fit after it. */
const FRESH_START_BELOW = SUFFIX_END / 2;

/** `yyyyMMddHHmmssSSS` of a UTC time (17 digits): the ISO form's digits, made once per millisecond. */
export const utcStamp = (ms: number) => new Date(ms).toISOString().replace(/\D/g, '');

/**
 * A source of 24-digit numeric ids: the UTC time to the millisecond (`yyyyMMddHHmmssSSS`), then a 7-digit counter
 * that starts at random in each new millisecond and counts up within it. One source's ids only ever grow, so it
 * never repeats one: a clock set back keeps the last millisecond and counts on, and a millisecond's counter run out
 * moves on to the next millisecond. Two processes' ids of one millisecond collide only if their counters' runs
 * overlap (the odds are about the two runs' lengths over 10⁷); the unique keys catch that, and the writers draw again
 * (decision 0061). Opaque to callers: the time is the process's clock, no business time.
 */
export function timeOrderedIds(clock: () => number = Date.now): () => string {
  let lastMs = -1;
  let stamp = '';
  let counter = 0;
  const startAt = (ms: number) => {
    lastMs = ms;
    stamp = utcStamp(ms);
    counter = randomInt(FRESH_START_BELOW);
  };
  return () => {
    const now = clock();
    if (now > lastMs) startAt(now);
    else if (++counter >= SUFFIX_END) startAt(lastMs + 1);
    return stamp + String(counter).padStart(SUFFIX_DIGITS, '0');
  };
}

/** Order numbers and refund codes: one source for both, so that no two of this process's ids are equal. */
export const newNumericId = timeOrderedIds();

const RANDOM_BYTES = 18;
/** Random bytes drawn 4 KB at a time: one call into the CSPRNG per ~227 ids instead of one per id. */
const randomPool = Buffer.alloc(RANDOM_BYTES * 227);
let randomPoolAt = randomPool.length;

/**
 * An unguessable id that grows with time: 11 hex digits of the millisecond (fixed width until the year 2527),
 * then 18 random bytes in base64url (24 characters, 144 bits). Ids of one millisecond are in random order
 * among themselves; the time keeps their index entries together.
 */
export function newTimeRandomId(now = Date.now()): string {
  if (randomPoolAt + RANDOM_BYTES > randomPool.length) {
    randomFillSync(randomPool);
    randomPoolAt = 0;
  }
  const random = randomPool.toString('base64url', randomPoolAt, randomPoolAt + RANDOM_BYTES);
  randomPoolAt += RANDOM_BYTES;
  return now.toString(16).padStart(11, '0') + random;
}
