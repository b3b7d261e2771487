// The client credential headers of spec endpoints (spec 5): their names and the bounds of what they may hold. Read
// alike by the client hook (auth.ts) and by the answer lane's pre-check (lane.ts), so that the two never disagree.

/** Longest client id and secret compared at all: longer ones are wrong without a look at the store. */
const MAX_CLIENT_ID_CHARS = 128;
const MAX_CLIENT_SECRET_CHARS = 256;

export interface CredentialHeaders {
  id: string;
  secret: string;
}

/** `x-<prefix>-client-id` and `x-<prefix>-client-secret`, lower-case as Node gives header names. */
export function credentialHeaders(headerPrefix: string): CredentialHeaders {
  return { id: `x-${headerPrefix}-client-id`, secret: `x-${headerPrefix}-client-secret` };
}

/**
 * The credential a request carries: its id and secret, 'missing' when either header is absent, repeated or empty,
 * 'oversized' when either is longer than any stored one can be.
 */
export function credentialOf(headers: Record<string, string | string[] | undefined>, names: CredentialHeaders): CredentialHeaders | 'missing' | 'oversized' {
  const id = headers[names.id];
  const secret = headers[names.secret];
  if (typeof id !== 'string' || typeof secret !== 'string' || id === '' || secret === '') return 'missing';
  if (id.length > MAX_CLIENT_ID_CHARS || secret.length > MAX_CLIENT_SECRET_CHARS) return 'oversized';
  return { id, secret };
}
