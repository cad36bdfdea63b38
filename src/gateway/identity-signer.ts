import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';
import type { JWK, KeyLike } from 'jose';
import { upstreamAudience } from '../upstream-kit/verify-identity';
import type { Clock } from '../util/clock';
import type { SigningKeyStore, StoredSigningKey } from './identity-key-store';

export interface IdentitySigner {
  /**
   * The Authorization value for one upstream, `Bearer <JWT>`: a short-lived JWT naming the account
   * and plan, for that upstream alone (its `aud`, see upstreamAudience), cached per upstream,
   * account and plan with its header value (built once, not per request), and then returned at once
   * (a promise only when a token has to be signed).
   */
  authorization(upstream: string, accountId: string, plan: string): string | Promise<string>;
  jwks(): { keys: JWK[] };
}

/** A signed token's Authorization value, and when it is to be signed again. */
interface Signed {
  value: string;
  renewAt: number;
}

export interface IdentityOptions {
  issuer: string;
  /** The audience's stem: each upstream's assertions carry `<audience>/<upstream name>`. */
  audience: string;
  ttlSeconds: number;
}

/** A new ES256 key pair, named by when it was made. */
async function makeSigningKey(clock: Clock): Promise<StoredSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = `gw-${Math.floor(clock.now() / 1000).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return { kid, privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

/**
 * ES256 signer; its public half is served as JWKS on the admin port. With a store, every replica
 * signs with the one key kept there (made by the first to start), so the JWKS of any replica
 * verifies the assertions of all, across restarts; without one, with a key made at start.
 * Tokens are reused until half their life is gone, so signing is not on every request's path.
 */
export async function createIdentitySigner(
  opts: IdentityOptions,
  clock: Clock,
  store?: SigningKeyStore,
): Promise<IdentitySigner> {
  const make = () => makeSigningKey(clock);
  const { kid, privateJwk, publicJwk } = store ? await store.loadOrCreate(make) : await make();
  const privateKey = (await importJWK(privateJwk, 'ES256')) as KeyLike;
  const jwk = { ...publicJwk, kid, alg: 'ES256', use: 'sig' };
  // Upstream → account id → plan → entry: lookups by strings the config and the key cache keep
  // (their hashes are kept with them) instead of one by a string made and hashed on every request.
  const cache = new Map<string, Map<string, Map<string, Signed>>>();
  let cached = 0;
  const sign = async (key: KeyLike, upstream: string, accountId: string, plan: string): Promise<string> => {
    const iat = Math.floor(clock.now() / 1000);
    return new SignJWT({ plan })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(opts.issuer)
      .setAudience(upstreamAudience(opts.audience, upstream))
      .setSubject(accountId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + opts.ttlSeconds)
      .sign(key);
  };
  return {
    authorization(upstream, accountId, plan) {
      const now = clock.now();
      const hit = cache.get(upstream)?.get(accountId)?.get(plan);
      if (hit && hit.renewAt > now) return hit.value;
      return sign(privateKey, upstream, accountId, plan).then((token) => {
        const value = `Bearer ${token}`;
        if (cached >= 50_000) {
          cache.clear();
          cached = 0;
        }
        let accounts = cache.get(upstream);
        if (!accounts) cache.set(upstream, (accounts = new Map<string, Map<string, Signed>>()));
        let plans = accounts.get(accountId);
        if (!plans) accounts.set(accountId, (plans = new Map<string, Signed>()));
        if (!plans.has(plan)) cached++;
        plans.set(plan, { value, renewAt: now + (opts.ttlSeconds * 1000) / 2 });
        return value;
      });
    },
    jwks: () => ({ keys: [jwk] }),
  };
}
