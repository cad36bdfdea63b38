import { createRemoteJWKSet, jwtVerify } from 'jose';
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
    const jwks: JWTVerifyGetKey = createRemoteJWKSet(new URL(opts.jwksUrl));
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
    } catch {
      throw new ApiError('unauthorized', { message: 'Token quản trị không hợp lệ hoặc đã hết hạn.' });
    }
    if (!hasAdminScope(payload)) throw new ApiError('forbidden');
    return payload;
  };
}
