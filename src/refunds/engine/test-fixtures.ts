// Builders shared by the engine's tests (not part of the engine's API).
import { departureInstant } from './time.js';
import type { LocalDeparture, RefundRule, TicketForQuote } from './types.js';

/** Default first departure: 2025-06-11 12:00 in Berlin (CEST, +02:00) = 2025-06-11T10:00:00Z. */
export const DEPARTURE: LocalDeparture = { local: '2025-06-11 12:00', timeZone: 'Europe/Berlin' };
export const DEPARTURE_MS = Date.UTC(2025, 5, 11, 10, 0);

export function ticket(over: Partial<TicketForQuote> = {}): TicketForQuote {
  return {
    ticketNo: '220-0000000001',
    carrier: 'LH',
    passengerType: 'ADT',
    currency: 'EUR',
    fareMinor: 30_000,
    taxMinor: 5_000,
    firstDeparture: DEPARTURE,
    ancillaries: [],
    postTicketingServices: [],
    ...over,
  };
}

export function rule(over: Partial<RefundRule> = {}): RefundRule {
  return { airline: 'LH', ruleType: '1', ...over };
}

/** A clock reading `minutes` (plus `seconds`) before the departure of `dep`; negative = after departure. */
export function before(minutes: number, seconds = 0, dep: LocalDeparture = DEPARTURE): Date {
  return new Date(departureInstant(dep) - minutes * 60_000 - seconds * 1000);
}
