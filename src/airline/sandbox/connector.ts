// The built-in sandbox airline: answers from a world file, with the latency and failures the world asks for.
import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectorError, type AirlineConnector, type AirlineFeature, type AirlineRecord, type CallOptions } from '../connector.js';
import type { World, WorldBehaviourLike } from './types.js';

export class SandboxConnector implements AirlineConnector {
  readonly name = 'sandbox';

  constructor(private readonly world: World) {}

  carriers(): string[] {
    return [...this.world.airlines.keys()];
  }

  supports(carrier: string, feature: AirlineFeature): boolean {
    const airline = this.world.airlines.get(carrier);
    return airline !== undefined && airline.supports?.[feature] !== false;
  }

  async readRecord(carrier: string, pnr: string, opts: CallOptions): Promise<AirlineRecord | null> {
    const airline = this.world.airlines.get(carrier);
    if (!airline) throw new ConnectorError('rejected', false, `sandbox airline ${carrier} does not exist`);
    const booking = this.world.bookings.get(`${carrier}/${pnr}`);
    // A missing PNR costs the same latency as an existing one: timing must not reveal which PNRs exist.
    await this.behave({ ...airline.behaviour, ...(booking?.behaviour ?? {}) }, opts.signal);
    return booking ? structuredClone(booking.record) : null;
  }

  private async behave(b: WorldBehaviourLike, signal: AbortSignal): Promise<void> {
    try {
      if (b.failure === 'timeout') {
        // The airline never answers: wait until the caller gives up.
        await sleep(2 ** 31 - 1, undefined, { signal });
      }
      if (b.latencyMs) await sleep(b.latencyMs, undefined, { signal });
    } catch (err) {
      if (signal.aborted) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
      throw err;
    }
    if (signal.aborted) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
    if (b.failure === 'error') throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
  }
}
