// A submission's read, checks and write again while its write finds the order moved (decision 0039): the loop
// refund.do and void.do share, with the limits after which the answer is 814.
import { ApiError } from '../errors.js';
import { REFUND_STATUS as S } from './statuses.js';

/** An attempt's outcome: its answer, or why it was not written (`moved`: the order's version; `behind`: another submission of its batch for the order went first). */
export type Attempt<T> = T | 'moved' | 'behind';

/**
 * Moves of the order between a submission's read and its write, one after the other, before 814: it never writes
 * unchecked (refund.do and void.do alike, readUntilWritten).
 */
const MAX_MOVES = 5;
/**
 * Attempts at most, whatever their outcome: a submission behind others of its order in a batch goes again, and
 * each round writes one of them (passengers of one order submitted each at once: one round per passenger).
 */
const MAX_ATTEMPTS = 40;

/**
 * A submission's read, checks and write, `attempt()`, again while it is not written: the order moved between its
 * read and its write, or another submission of the write's batch came first for the order (decision 0039). After
 * MAX_MOVES moves (an order written without pause) or MAX_ATTEMPTS attempts in all the answer is 814: a
 * submission is never written on checks of an order that has changed since. `what` names it in the 814's msg.
 */
export async function readUntilWritten<T>(attempt: () => Promise<Attempt<T>>, what: 'refund' | 'void' = 'refund'): Promise<T> {
  let moved = 0;
  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    const answer = await attempt();
    if (answer === 'moved') {
      if (++moved >= MAX_MOVES) throw new ApiError(S.SUBMISSION_IN_PROGRESS, `the order kept changing while this ${what} was checked; wait before retrying`);
    } else if (answer !== 'behind') return answer;
  }
  throw new ApiError(S.SUBMISSION_IN_PROGRESS, `${what} submission already in progress for this order; wait before retrying`);
}
