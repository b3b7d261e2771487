// PostgreSQL errors mapped in one place, by SQLSTATE (pg and PGlite both set `code` and `constraint`).
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export const isUniqueViolation = (err: unknown) => sqlState(err) === '23505';
export const isSerializationFailure = (err: unknown) => sqlState(err) === '40001' || sqlState(err) === '40P01';

export function constraintOf(err: unknown): string | undefined {
  const c = (err as { constraint?: unknown } | null)?.constraint;
  return typeof c === 'string' ? c : undefined;
}
