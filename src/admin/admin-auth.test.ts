import { SignJWT } from 'jose';
import { createAdminVerifier } from './admin-auth';
import { ApiError } from '../errors/api-error';

const SECRET = 'a-test-secret-of-thirty-two-bytes-or-more';
const verify = createAdminVerifier({ secret: SECRET });
const sign = (claims: Record<string, unknown>, exp?: number): Promise<string> => {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setAudience('lookup-admin');
  if (exp !== undefined) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(SECRET));
};
const now = (): number => Math.floor(Date.now() / 1000);
const code = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof ApiError ? e.code : String(e)),
  );

describe('admin tokens', () => {
  it('accepts an unexpired token for lookup-admin with the admin scope', async () => {
    const payload = await verify(`Bearer ${await sign({ scope: 'admin', sub: 'ops' }, now() + 600)}`);
    expect(payload.sub).toBe('ops');
  });
});

describe('admin tokens: refused', () => {
  it('refuses a token without an expiry, which would open the admin API for good', async () => {
    expect(await code(verify(`Bearer ${await sign({ scope: 'admin' })}`))).toBe('unauthorized');
  });

  it('refuses an expired token, and one without the admin scope with 403', async () => {
    expect(await code(verify(`Bearer ${await sign({ scope: 'admin' }, now() - 60)}`))).toBe('unauthorized');
    expect(await code(verify(`Bearer ${await sign({ scope: 'read' }, now() + 600)}`))).toBe('forbidden');
  });
});
