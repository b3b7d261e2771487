// Reading an airline record for a caller: bounded in time, and shown only to a caller who knows it.
import { ConnectorError, type AirlineDirectory, type AirlineRecord } from '../airline/connector.js';
import { AIRLINE_TIMEOUT_MS, Deadline } from '../airline/deadline.js';
import { isImmutableRecord } from '../airline/record.js';
import { ApiError } from '../errors.js';
import { PNR_STATUS } from './statuses.js';

/** extractPnr.do without `timeout`, and pnr/claim.do: the one airline time-out. */
export const DEFAULT_TIMEOUT_MS = AIRLINE_TIMEOUT_MS;

/** ASCII letters only: NFKD and the removals leave them as they are, so only the case is left to change. */
const ASCII_LETTERS = /^[A-Za-z]*$/;

/**
 * Names compare without case, accents, spaces or punctuation ("de la Cruz" = "DELACRUZ"), in every script: the
 * letters of Cyrillic, Greek, Chinese … names are kept (a review: only A–Z were, so "Иванов" and "---" were both ''
 * and matched each other — a record with such names was shown to anyone with its PNR and e-mail, and a refund
 * could pick another passenger of the order). A name with no letter at all is '': the record's readers and the claim
 * match it to nothing.
 */
export function normalizeName(name: string): string {
  // Most names on the wire are already ASCII letters (airline records are upper case): 0.03 against 0.36 µs.
  if (ASCII_LETTERS.test(name)) return name.toUpperCase();
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^\p{L}]/gu, '');
}


export function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export const NOT_FOUND_MSG = 'no airline record matches this PNR, carrier, passengers and e-mail';

/**
 * The record from the carrier's airline, or null (also when the airline refuses the read). Airline failures become
 * the documented statuses. `deadline`
 * (default: `timeoutMs` from now) is shared by the reads of one request.
 */
export async function readAirlineRecord(
  airlines: AirlineDirectory,
  carrier: string,
  pnr: string,
  timeoutMs: number,
  deadline: Deadline = new Deadline(timeoutMs),
): Promise<AirlineRecord | null> {
  const connector = airlines.forCarrier(carrier);
  if (!connector) throw new ApiError(PNR_STATUS.CARRIER_NOT_SERVED, `carrier ${carrier} is not connected to this service`);
  if (deadline.expired) throw new ApiError(PNR_STATUS.TIMEOUT, `the airline did not answer within ${timeoutMs} ms; try again`);
  try {
    return await connector.readRecord(carrier, pnr, deadline);
  } catch (err) {
    if (err instanceof ConnectorError) {
      if (err.kind === 'timeout') throw new ApiError(PNR_STATUS.TIMEOUT, `the airline did not answer within ${timeoutMs} ms; try again`);
      // The airline refused the read (a PNR it will not show, a record not its own …): to the caller, a record it
      // does not hold — the not-found answer, byte for byte (decision 0004). It answered 99008 "not connected" for a
      // connected carrier (a review: 99008 against 99005 told which PNRs the airline refuses, and in a claim one
      // refusing carrier hid the others' 99005). 99008 is for a carrier no connector serves, above.
      if (err.kind === 'rejected') return null;
      throw new ApiError(PNR_STATUS.AIRLINE_ERROR, 'the airline system is unavailable; try again later');
    }
    throw err;
  }
}

/** True when every given last name is on the record and the e-mail is the record's contact. */
export function callerKnowsRecord(record: AirlineRecord, lastNames: string[], email: string): boolean {
  if (!sameEmail(record.contact.email, email)) return false;
  const onRecord = namesOnRecord(record);
  return lastNames.length > 0 && lastNames.every((n) => {
    const name = normalizeName(n);
    return name !== '' && onRecord.has(name);
  });
}

/** Normalized last names per record object: connectors hand out one immutable object per record version. */
const namesByRecord = new WeakMap<AirlineRecord, ReadonlySet<string>>();
function namesOnRecord(record: AirlineRecord): ReadonlySet<string> {
  let names = namesByRecord.get(record);
  if (!names) {
    names = new Set(record.passengers.map((p) => normalizeName(p.lastName)));
    // A record that is not frozen may still change under us: only immutable ones are remembered.
    if (isImmutableRecord(record)) namesByRecord.set(record, names);
  }
  return names;
}
