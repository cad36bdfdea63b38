import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keptAdminSecret, resolveAdminSecret, warnOfAdminSecret } from './admin-secret';
import { capturedLog } from '../../test/support/captured-log';

const warnings = (secret: string | undefined, jwksUrl?: string): string[] => {
  const { logger, lines } = capturedLog();
  warnOfAdminSecret(secret, logger, jwksUrl);
  return lines.filter((l) => l.level === 40).map((l) => String(l.msg).split(':')[0]!);
};

describe('the admin secret at start', () => {
  it('says nothing of a secret of 32 bytes or more, or of a JWKS alone', () => {
    expect(warnings('x'.repeat(32))).toEqual([]);
    expect(warnings(undefined, 'https://idp.example/jwks.json')).toEqual([]);
  });

  it('warns of a secret shorter than 32 bytes', () => {
    expect(warnings('short')).toEqual(['ADMIN_JWT_SECRET is shorter than 32 bytes']);
  });

  it('warns that the secret is ignored when ADMIN_JWKS_URL is set too, short or not', () => {
    for (const secret of ['short', 'x'.repeat(32)])
      expect(warnings(secret, 'https://idp.example/jwks.json')).toEqual(['ADMIN_JWT_SECRET is ignored']);
  });
});

describe('which secret signs admin tokens', () => {
  const dataDir = (): string => mkdtempSync(join(tmpdir(), 'admin-secret-'));

  it("takes the operator's secret, and none when tokens are verified against a JWKS", () => {
    const dir = dataDir();
    expect(
      resolveAdminSecret({ adminJwtSecret: 's'.repeat(32), embeddedDefault: false, dataDir: dir }),
    ).toEqual({
      secret: 's'.repeat(32),
      embedded: false,
    });
    const jwks = { adminJwksUrl: 'https://idp.example/jwks.json', embeddedDefault: false, dataDir: dir };
    expect(resolveAdminSecret(jwks)).toEqual({ secret: undefined, embedded: false });
    expect(keptAdminSecret(dir)).toBeUndefined();
  });

  it('makes one in the embedded default, kept in DATA_DIR so a restart signs with the same', () => {
    const dir = dataDir();
    const first = resolveAdminSecret({ embeddedDefault: true, dataDir: dir });
    expect(first.embedded).toBe(true);
    expect(first.secret).toMatch(/^[\w-]{43}$/);
    expect(resolveAdminSecret({ embeddedDefault: true, dataDir: dir })).toEqual(first);
    expect(keptAdminSecret(dir)).toBe(first.secret);
  });

  it('refuses to start on PostgreSQL or Redis with neither a secret nor a JWKS', () => {
    const dir = dataDir();
    expect(() => resolveAdminSecret({ embeddedDefault: false, dataDir: dir })).toThrow(
      'ADMIN_JWT_SECRET or ADMIN_JWKS_URL is required outside the embedded default',
    );
    expect(keptAdminSecret(dir)).toBeUndefined();
  });
});
