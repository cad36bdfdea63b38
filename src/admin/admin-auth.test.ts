import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyLike } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
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

describe('admin tokens verified against a JWKS (ADMIN_JWKS_URL)', () => {
  let server: Server;
  let base: string;
  let answer: { status: number; body: string };
  let signKey: KeyLike;
  let otherKey: KeyLike;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    answer = { status: 200, body: JSON.stringify({ keys: [jwk] }) };
    server = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const es256 = (key: KeyLike, kid = 'k1'): Promise<string> =>
    new SignJWT({ scope: 'admin', sub: 'billing' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setAudience('lookup-admin')
      .setExpirationTime(now() + 600)
      .sign(key);

  it('accepts a token signed by a key of the set', async () => {
    const payload = await createAdminVerifier({ jwksUrl: `${base}/jwks.json` })(
      `Bearer ${await es256(signKey)}`,
    );
    expect(payload.sub).toBe('billing');
  });

  it('refuses with 401 a token the set does not vouch for: another key, or an unknown kid', async () => {
    const verify = createAdminVerifier({ jwksUrl: `${base}/jwks.json` });
    expect(await code(verify(`Bearer ${await es256(otherKey)}`))).toBe('unauthorized');
    expect(await code(verify(`Bearer ${await es256(signKey, 'k9')}`))).toBe('unauthorized');
  });

  it('answers 503 with Retry-After, not 401, when the set cannot be fetched or read, so a billing system retries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));
    const token = `Bearer ${await es256(signKey)}`;
    const failures: [string, () => void][] = [
      ['refused', () => undefined],
      ['500', () => (answer = { status: 500, body: '{}' })],
      ['not JSON', () => (answer = { status: 200, body: '<html>' })],
      ['not a JWKS', () => (answer = { status: 200, body: '{"keys":"none"}' })],
    ];
    const saved = answer;
    const seen: unknown[] = [];
    for (const [name, arrange] of failures) {
      arrange();
      const url = name === 'refused' ? closedUrl : `${base}/jwks.json`;
      const err = await createAdminVerifier({ jwksUrl: url })(token).catch((e: unknown) => e);
      seen.push([
        name,
        err instanceof ApiError ? [err.status, err.code, err.extras.retryAfter] : String(err),
      ]);
    }
    answer = saved;
    expect(seen).toEqual(failures.map(([name]) => [name, [503, 'service_unavailable', 5]]));
  });
});
