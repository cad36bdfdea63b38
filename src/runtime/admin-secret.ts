import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from '../util/data-dir';
import { SignJWT } from 'jose';
import type { Logger } from '../util/logger';

const SECRET_FILE = 'admin-jwt-secret';

/** The embedded secret kept in DATA_DIR, if a start made one (the admin CLI signs with it). */
export function keptAdminSecret(dataDir: string): string | undefined {
  const file = join(dataDir, SECRET_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

/**
 * Embedded default without ADMIN_JWT_SECRET: a secret generated once and kept in DATA_DIR, so an
 * admin token printed by one start stays valid across restarts of the same data directory.
 */
export function embeddedAdminSecret(dataDir: string): string {
  const kept = keptAdminSecret(dataDir);
  if (kept !== undefined) return kept;
  const file = join(dataDir, SECRET_FILE);
  ensureDataDir(dataDir);
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

/** An HS256 admin token (aud lookup-admin, scope admin), as the billing system would mint. */
export function signAdminToken(
  secret: string,
  nowMs: number,
  ttlSeconds = 30 * 86_400,
  subject = 'embedded-admin',
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ scope: 'admin' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(subject)
    .setAudience('lookup-admin')
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}

/**
 * What is wrong with the admin secret, said once at start. A short one is not refused: DESIGN sets
 * no length, and a short secret still verifies. RFC 7518 asks HS256 for a
 * key of at least 256 bits; a shorter one can be guessed offline from any token.
 */
export function warnOfAdminSecret(secret: string | undefined, logger: Logger, jwksUrl?: string): void {
  // With both set the JWKS verifies (admin-auth.ts): said at start, or the operator's first sign
  // is the admin CLI's tokens, signed with the secret, refused with 401.
  if (secret !== undefined && jwksUrl !== undefined) {
    logger.warn(
      "ADMIN_JWT_SECRET is ignored: admin tokens are verified against ADMIN_JWKS_URL, so tokens signed with the secret (the admin CLI's) are refused; set only one",
    );
    return;
  }
  if (secret !== undefined && Buffer.byteLength(secret) < 32)
    logger.warn(
      { bytes: Buffer.byteLength(secret) },
      'ADMIN_JWT_SECRET is shorter than 32 bytes: admin tokens signed with it can be guessed offline; use a longer one',
    );
}

/**
 * The secret admin tokens are signed with: the operator's, or in the embedded default one generated
 * once and kept in DATA_DIR (`embedded` true); none when tokens are verified against a JWKS.
 */
export function resolveAdminSecret(opts: {
  adminJwtSecret?: string;
  adminJwksUrl?: string;
  embeddedDefault: boolean;
  dataDir: string;
}): { secret?: string; embedded: boolean } {
  if (opts.adminJwtSecret || opts.adminJwksUrl) return { secret: opts.adminJwtSecret, embedded: false };
  if (!opts.embeddedDefault)
    throw new Error('ADMIN_JWT_SECRET or ADMIN_JWKS_URL is required outside the embedded default');
  return { secret: embeddedAdminSecret(opts.dataDir), embedded: true };
}
