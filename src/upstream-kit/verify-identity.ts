import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { JWTVerifyGetKey } from 'jose';

/**
 * Whether a request's Authorization carries a valid identity assertion of the gateway: true, or
 * why not (what the upstream's log line says of a 401: during a rollout, an audience or a key that
 * does not match tells the operator more than the 401 alone). A plain false is a refusal too.
 */
export type IdentityCheck = (authorization: string | undefined) => Promise<true | false | IdentityRefusal>;

export interface IdentityRefusal {
  /** jose's error code, with the claim it failed on (`ERR_JWT_CLAIM_VALIDATION_FAILED aud`), or what was missing. */
  refused: string;
}

function refusalOf(err: unknown): IdentityRefusal {
  const { code, claim } = (err ?? {}) as { code?: unknown; claim?: unknown };
  const why = typeof code === 'string' ? code : 'unverifiable';
  return { refused: typeof claim === 'string' ? `${why} ${claim}` : why };
}

/** Tokens remembered at most; past it the memo starts again (it only saves verifications). */
const MEMO_MAX = 10_000;

/**
 * The `aud` of the assertions the gateway signs for one upstream (`<identity.audience>/<name>`): a
 * token one upstream receives, and could leak or replay, is refused by every other.
 */
export const upstreamAudience = (audience: string, upstream: string): string => `${audience}/${upstream}`;

/** Whom this upstream accepts assertions from, and as which audience (gateway.yaml `identity`). */
export interface IdentityExpectation {
  /** `<identity.audience>/<this upstream's name in upstreams.yaml>`, e.g. `lookup-upstream/legal`. */
  audience: string;
  /** gateway.yaml `identity.issuer`; `lookup-gateway` by default. */
  issuer?: string;
}

/**
 * Verifies the gateway's assertion (DESIGN §4): ES256, signed by a key of the gateway's JWKS, from
 * the gateway's issuer, for this upstream's audience (an assertion another upstream received is
 * refused here), with an expiry that has not passed. A verified token is remembered until it
 * expires: the gateway reuses one per account for most of its lifetime, and an ES256 verification
 * costs more than the lookup it guards.
 */
export function identityVerifier(
  keys: JWTVerifyGetKey,
  expected: IdentityExpectation,
  now: () => number = Date.now,
): IdentityCheck {
  const issuer = expected.issuer ?? 'lookup-gateway';
  const verified = new Map<string, number>();
  return async (authorization) => {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!token) return { refused: 'no assertion' };
    const until = verified.get(token);
    if (until !== undefined) return until > now() ? true : { refused: 'ERR_JWT_EXPIRED exp' };
    try {
      const { payload } = await jwtVerify(token, keys, {
        algorithms: ['ES256'],
        issuer,
        audience: expected.audience,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(now()),
      });
      if (verified.size >= MEMO_MAX) verified.clear();
      verified.set(token, payload.exp! * 1000);
      return true;
    } catch (err) {
      return refusalOf(err);
    }
  };
}

/** The verifier of a standalone upstream: the keys from the gateway's JWKS URL, refetched for an unknown kid. */
export const remoteIdentityVerifier = (jwksUrl: string, expected: IdentityExpectation): IdentityCheck =>
  identityVerifier(createRemoteJWKSet(new URL(jwksUrl)), expected);
