// Wire helpers shared by every endpoint's TypeBox schemas.
import Type, { type TSchema } from 'typebox';

/** Optional and nullable: callers may leave it out or send null (docs/architecture.md "Wire conventions"). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/** A response field the spec marks nullable: always present, null when empty. */
export const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    status: Type.Integer({ description: 'non-zero: see the status tables in docs/' }),
    msg: Type.String({ description: 'human text; never decide from it' }),
  },
  { description: 'every failure body carries at least status and msg' },
);

/** Transport-level failures every spec endpoint may answer with. */
export const TRANSPORT_ERRORS = {
  400: ErrorBody,
  401: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
  500: ErrorBody,
} as const;
