import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes (256 bits), base64url: "lk_" + 43 characters. */
export function generateApiKey(): string {
  return 'lk_' + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  // One-shot digest: no Hash object per request (a key is hashed on every call).
  return hash('sha256', key, 'hex');
}

/** Constant-time equality of two hex hashes (the lookup is by hash; this confirms without a timing leak). */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const KEY_SHAPE = /^lk_[A-Za-z0-9_-]{43}$/;

/**
 * Keys have a fixed shape; anything else is rejected before hashing or touching a store. The length
 * is checked first: every query value is also tested, and almost none is 46 characters long.
 */
export function looksLikeApiKey(s: string): boolean {
  return s.length === 46 && KEY_SHAPE.test(s);
}

/**
 * Query parameter names that carry a key: refused outright so keys never sit in URLs and logs (and
 * so no dataset may declare a parameter by one of these names).
 */
export const KEY_PARAMS: ReadonlySet<string> = new Set([
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
  'access_token',
  'x-api-key',
  'x_api_key',
]);

const KEY_INSIDE = /(?:^|[^A-Za-z0-9_-])lk_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/;

/**
 * Whether a key sits anywhere in the text (`Bearer lk_…`, `lk_… ` with a space, a list of them):
 * the reference refuses a key in the query string, whatever surrounds it. Two cheap tests first,
 * since every query name and value goes through this.
 */
export function containsApiKey(s: string): boolean {
  return s.length >= 46 && s.includes('lk_') && KEY_INSIDE.test(s);
}

export function newId(prefix: string): string {
  return prefix + randomBytes(10).toString('hex');
}
