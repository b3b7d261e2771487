// The sandbox clock command (sandbox mode only): read the movable test clock, or move it forward by minutes
// or to an instant. GET and POST /sandbox/clock in the route table; the admin token guards them.
import Type, { type Static } from 'typebox';
import type { TestClock } from './clock.js';
import { ApiError } from './errors.js';

export const ClockState = Type.Object({ now: Type.String({ format: 'date-time' }), offsetMs: Type.Integer() });
export type ClockState = Static<typeof ClockState>;

export const MoveClockRequest = Type.Object({
  advanceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5_256_000 })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
});
export type MoveClockRequest = Static<typeof MoveClockRequest>;

export function clockState(clock: TestClock): ClockState {
  return { now: clock.now().toISOString(), offsetMs: clock.now().getTime() - Date.now() };
}

/** Moves the clock; it never goes back. */
export function moveClock(clock: TestClock, { advanceMinutes, to }: MoveClockRequest): ClockState {
  if ((advanceMinutes === undefined) === (to === undefined)) throw new ApiError(100, 'invalid request: send exactly one of advanceMinutes or to', 400);
  if (to !== undefined) {
    const target = new Date(to);
    if (target.getTime() < clock.now().getTime()) throw new ApiError(100, 'invalid request: the clock only moves forward', 400);
    clock.set(target);
  } else {
    clock.advance((advanceMinutes ?? 0) * 60_000);
  }
  return clockState(clock);
}
