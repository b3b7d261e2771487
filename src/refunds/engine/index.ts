// Public surface of the pure refund-rules engine; import from here, not from the files behind it.
export { quoteTicket, rangeOf } from './quote.js';
export { quoteRequest } from './request.js';
export { windowContains, windowWidth, rankCandidates } from './rules.js';
export { departureInstant, RefundEngineInputError } from './time.js';
export { minutesBetween, NowRange } from './now-range.js';
export { lookupRate, convertMinor } from './convert.js';
export type * from './types.js';
