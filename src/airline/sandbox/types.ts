export type { World, SandboxBooking, ResolvedFlight } from './world.js';
export type { WorldBehaviour as WorldBehaviourLike } from './world-schema.js';
