// Seat maps in memory, keyed by flight and cabin (DESIGN performance target: seatAvailability.do ≥ 0.6 of a
// bare route). Every seat sale through order.do drops the flight's entries; a short TTL bounds how stale a
// map can be when another process sold the seat (order.do still asks the airline, which refuses a taken seat).
import type { SeatMapAnswer } from '../airline/connector.js';

const TTL_MS = 30_000;
const MAX_ENTRIES = 5_000;

export class SeatMapCache {
  private readonly entries = new Map<string, { answer: SeatMapAnswer; at: number }>();

  constructor(private readonly ttlMs = TTL_MS) {}

  static key(carrier: string, flightNumber: string, depDate: string, cabinClass: number, fareFamily: string | null): string {
    return `${carrier}|${flightNumber}/${depDate}|${cabinClass}|${fareFamily ?? ''}`;
  }

  async get(key: string, load: () => Promise<SeatMapAnswer>): Promise<SeatMapAnswer> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.answer;
    const answer = await load();
    // Only real maps are kept: a refusal may be a passing failure.
    if (answer.ok) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { answer, at: Date.now() });
    }
    return answer;
  }

  /** A seat was sold on this flight: every cabin's map of it is stale. */
  invalidateFlight(carrier: string, flightNumber: string, depDate: string): void {
    const prefix = `${carrier}|${flightNumber}/${depDate}|`;
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
