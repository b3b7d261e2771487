// Wire helpers shared by every endpoint's TypeBox schemas.
import Type, { type TSchema } from 'typebox';
import { Format } from 'typebox/format';

/** A real calendar date written yyyyMMdd (20261340 and 20290229 are not). */
export function isCompactDate(value: string): boolean {
  if (value.length !== 8) return false;
  const y = Number(value.slice(0, 4));
  const m = Number(value.slice(4, 6));
  const d = Number(value.slice(6, 8));
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d) || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate(); // day 0 of the next month: this month's last day
}

/** yyyyMMddHHmm: a real date and a time of day 00:00–23:59. */
export function isCompactDateTime(value: string): boolean {
  if (value.length !== 12 || !isCompactDate(value.slice(0, 8))) return false;
  const h = Number(value.slice(8, 10));
  const min = Number(value.slice(10, 12));
  return Number.isInteger(h) && Number.isInteger(min) && h <= 23 && min <= 59;
}

// Formats the request schemas name beside their digit patterns, so that a date that does not exist is a
// validation failure (the family's invalid-request status) like a malformed one.
Format.Set('yyyyMMdd', (v) => /^\d{8}$/.test(v) && isCompactDate(v));
Format.Set('yyyyMMddHHmm', (v) => /^\d{12}$/.test(v) && isCompactDateTime(v));
Format.Set('yyyyMMdd[HHmm]', (v) => (/^\d{8}$/.test(v) && isCompactDate(v)) || (/^\d{12}$/.test(v) && isCompactDateTime(v)));

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
  // a process shutting down that did nothing with the request: send it again (decision 0003)
  503: ErrorBody,
} as const;
