// Seat productCodes: `SCI_SEAT_4A_XS_HND_SGN_P2500_<binding>`, unique per seat and segment and bound to the
// session they came from (docs/architecture.md "The booking chain"). The binding is a hash of the session id and the segment index:
// order.do recomputes it, so a code from another session, segment or client does not verify, and nothing
// has to be stored per seat. `P2500` is the seat's price as the map showed it, in minor units of the map's
// currency: order.do asks the airline at that price, so a price that moved since answers 322 instead of being
// charged unseen (found by a review). Codes without it (made before 2026-12-02) are asked at the map's price now.
import { createHash } from 'node:crypto';

export function sessionBinding(sessionId: string, segmentIndex: number): string {
  return createHash('sha256').update(`${sessionId}|${segmentIndex}`).digest('base64url').slice(0, 10).replace(/[-_]/g, 'x');
}

export function seatProductCode(seat: string, carrier: string, dep: string, arr: string, priceMinor: number, binding: string): string {
  return `SCI_SEAT_${seat}_${carrier}_${dep}_${arr}_P${priceMinor}_${binding}`;
}

const CODE = /^SCI_SEAT_(\d{1,3}[A-Z])_([A-Z0-9]{2})_([A-Z]{3})_([A-Z]{3})(?:_P(0|[1-9]\d{0,15}))?_([A-Za-z0-9]{10})$/;

export function parseSeatProductCode(code: string): { seat: string; carrier: string; dep: string; arr: string; priceMinor: number | null; binding: string } | null {
  const m = CODE.exec(code);
  if (!m) return null;
  // any price a seat map can carry (a review: 10 digits, IDR 10,000,000.00, was refused 309), within a safe integer
  const priceMinor = m[5] === undefined ? null : Number(m[5]);
  if (priceMinor !== null && !Number.isSafeInteger(priceMinor)) return null;
  return { seat: m[1]!, carrier: m[2]!, dep: m[3]!, arr: m[4]!, priceMinor, binding: m[6]! };
}
