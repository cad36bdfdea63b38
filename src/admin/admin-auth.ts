import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { ApiError } from '../errors/api-error';

export const ADMIN_AUDIENCE = 'lookup-admin';

export interface AdminVerifierOptions {
  /** HS256 shared secret (ADMIN_JWT_SECRET). */
  secret?: string;
  /** Or verify against a JWKS (ADMIN_JWKS_URL). */
  jwksUrl?: string;
}

export type AdminVerifier = (authorization: string | undefined) => Promise<JWTPayload>;

/** The key set could not be had: no verdict on the token, and nothing the caller should change. */
class KeySetAway extends Error {}

/**
 * Which of jose's failures come from fetching the set (refused or timed out, not 200, not a JWKS),
 * as opposed to judging the token against it: those are jose's own subclasses (no matching key,
 * a bad signature, claims), while its fetch raises the base JOSEError, a timeout, or node's errors.
 */
function keySetFault(err: unknown): boolean {
  if (!(err instanceof errors.JOSEError)) return true;
  return (
    err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err.code === 'ERR_JOSE_GENERIC'
  );
}

/** The JWKS getter, its fetch failures told apart: a billing system retries a 503, not a 401. */
function remoteKeys(url: string): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(url));
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (err) {
      throw keySetFault(err) ? new KeySetAway(`admin JWKS unavailable: ${String(err)}`, { cause: err }) : err;
    }
  };
}

const KEYS_AWAY = 'Không lấy được khóa xác minh token quản trị (JWKS); vui lòng thử lại sau.';

function hasAdminScope(payload: JWTPayload): boolean {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === 'string') return scope.split(/\s+/).includes('admin');
  return Array.isArray(scope) && scope.includes('admin');
}

/**
 * Admin tokens: JWT with aud "lookup-admin" and a scope containing "admin" (DESIGN §5), and an
 * expiry: a token that never expires, once copied into a ticket or a shell history, opens the
 * admin API for good.
 */
export function createAdminVerifier(opts: AdminVerifierOptions): AdminVerifier {
  const claims = { audience: ADMIN_AUDIENCE, requiredClaims: ['exp'] };
  let verify: (token: string) => Promise<JWTPayload>;
  if (opts.jwksUrl) {
    const jwks = remoteKeys(opts.jwksUrl);
    verify = async (t) => (await jwtVerify(t, jwks, claims)).payload;
  } else if (opts.secret) {
    const key = new TextEncoder().encode(opts.secret);
    verify = async (t) => (await jwtVerify(t, key, { ...claims, algorithms: ['HS256'] })).payload;
  } else {
    throw new Error('admin API needs ADMIN_JWT_SECRET or ADMIN_JWKS_URL');
  }
  return async (authorization) => {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!m)
      throw new ApiError('unauthorized', { message: 'Thiếu token quản trị (Authorization: Bearer <JWT>).' });
    let payload: JWTPayload;
    try {
      payload = await verify(m[1]!);
    } catch (err) {
      if (err instanceof KeySetAway) {
        const away = new ApiError('service_unavailable', { message: KEYS_AWAY, retryAfter: 5 });
        // What the operator's log shows: why the set could not be had.
        away.cause = err;
        throw away;
      }
      throw new ApiError('unauthorized', { message: 'Token quản trị không hợp lệ hoặc đã hết hạn.' });
    }
    if (!hasAdminScope(payload)) throw new ApiError('forbidden');
    return payload;
  };
}
