export type { World, SandboxBooking, ResolvedFlight } from './world.js';
export type { WorldBehaviour as WorldBehaviourLike } from './world-schema.js';
export type { WorldRefundBehaviour } from './world-schema.js';
export type { SandboxBooks } from './connector.js';
