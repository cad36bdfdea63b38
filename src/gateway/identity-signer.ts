import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK, KeyLike } from 'jose';
import type { Clock } from '../util/clock';

export interface IdentitySigner {
  /**
   * The Authorization value for the upstream, `Bearer <JWT>`: a short-lived JWT naming the account
   * and plan, cached per account and plan with its header value (built once, not per request), and
   * then returned at once (a promise only when a token has to be signed).
   */
  authorization(accountId: string, plan: string): string | Promise<string>;
  jwks(): { keys: JWK[] };
}

/** A signed token's Authorization value, and when it is to be signed again. */
interface Signed {
  value: string;
  renewAt: number;
}

export interface IdentityOptions {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/**
 * ES256 signer with a key pair made at start; its public half is served as JWKS on the admin port.
 * Tokens are reused until half their life is gone, so signing is not on every request's path.
 */
export async function createIdentitySigner(opts: IdentityOptions, clock: Clock): Promise<IdentitySigner> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `gw-${Math.floor(clock.now() / 1000).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  // Account id → plan → entry: two lookups by strings the key cache keeps (their hashes are kept
  // with them) instead of one by an account-and-plan string made and hashed on every request.
  const cache = new Map<string, Map<string, Signed>>();
  let cached = 0;
  const sign = async (key: KeyLike, accountId: string, plan: string): Promise<string> => {
    const iat = Math.floor(clock.now() / 1000);
    return new SignJWT({ plan })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(opts.issuer)
      .setAudience(opts.audience)
      .setSubject(accountId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + opts.ttlSeconds)
      .sign(key);
  };
  return {
    authorization(accountId, plan) {
      const now = clock.now();
      const hit = cache.get(accountId)?.get(plan);
      if (hit && hit.renewAt > now) return hit.value;
      return sign(privateKey, accountId, plan).then((token) => {
        const value = `Bearer ${token}`;
        if (cached >= 50_000) {
          cache.clear();
          cached = 0;
        }
        let plans = cache.get(accountId);
        if (!plans) cache.set(accountId, (plans = new Map<string, Signed>()));
        if (!plans.has(plan)) cached++;
        plans.set(plan, { value, renewAt: now + (opts.ttlSeconds * 1000) / 2 });
        return value;
      });
    },
    jwks: () => ({ keys: [jwk] }),
  };
}
