import { warnOfAdminSecret } from './admin-secret';
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
