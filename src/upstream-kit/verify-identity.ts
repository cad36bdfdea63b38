import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { JWTVerifyGetKey } from 'jose';

/** Whether a request's Authorization carries a valid identity assertion of the gateway. */
export type IdentityCheck = (authorization: string | undefined) => Promise<boolean>;

/** Tokens remembered at most; past it the memo starts again (it only saves verifications). */
const MEMO_MAX = 10_000;

/**
 * Verifies the gateway's assertion (DESIGN §4): ES256, signed by a key of the gateway's JWKS,
 * with an expiry that has not passed. The key signs nothing else, so its signature says who issued
 * the token. A verified token is remembered until it expires: the gateway reuses one per account
 * for most of its lifetime, and an ES256 verification costs more than the lookup it guards.
 */
export function identityVerifier(keys: JWTVerifyGetKey, now: () => number = Date.now): IdentityCheck {
  const verified = new Map<string, number>();
  return async (authorization) => {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!token) return false;
    const until = verified.get(token);
    if (until !== undefined) return until > now();
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: ['ES256'],
        requiredClaims: ['exp'],
        currentDate: new Date(now()),
      });
      if (verified.size >= MEMO_MAX) verified.clear();
      verified.set(token, payload.exp! * 1000);
      return true;
    } catch {
      return false;
    }
  };
}

/** The verifier of a standalone upstream: the keys from the gateway's JWKS URL, refetched for an unknown kid. */
export const remoteIdentityVerifier = (jwksUrl: string): IdentityCheck =>
  identityVerifier(createRemoteJWKSet(new URL(jwksUrl)));
