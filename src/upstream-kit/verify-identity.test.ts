import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import type { Db } from '../db/db';
import { createIdentitySigner } from '../gateway/identity-signer';
import { ManualClock } from '../util/clock';
import { silentLogger } from '../util/logger';
import { capturedLog } from '../../test/support/captured-log';
import { createUpstreamApp } from './upstream-app';
import { identityVerifier, remoteIdentityVerifier } from './verify-identity';
import type { IdentityCheck } from './verify-identity';

const db: Db = {
  kind: 'pglite',
  query: <R>() => Promise.resolve({ rows: [] as R[] }),
  transaction: () => Promise.reject(new Error('unused')),
  exec: () => Promise.resolve(),
  withQueryTimeout: () => db,
  close: () => Promise.resolve(),
};
const clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
const opts = { issuer: 'lookup-gateway', audience: 'lookup-upstream', ttlSeconds: 120 };
/** What the legal upstream expects: the gateway's issuer, and its own audience. */
const legal = { issuer: 'lookup-gateway', audience: 'lookup-upstream/legal' };
const appWith = (identity: IdentityCheck) =>
  createUpstreamApp({ db, logger: silentLogger(), datasets: [], identity });

describe('an upstream that verifies the gateway identity assertion', () => {
  it("lets the gateway's assertion through, and answers a request without one 401", async () => {
    const signer = await createIdentitySigner(opts, clock);
    const app = appWith(identityVerifier(createLocalJWKSet(signer.jwks()), legal, () => clock.now()));
    const bare = await request(app).get('/legal-documents?q=x');
    expect([bare.status, bare.body.code]).toEqual([401, 'unauthorized']);
    // Past the check, an upstream without datasets answers 404: the request was let in.
    const signed = await request(app)
      .get('/legal-documents?q=x')
      .set('authorization', await signer.authorization('legal', 'acc_1', 'pro'));
    expect(signed.status).toBe(404);
  });

  it('says in its log line of a 401 why the assertion was refused: another audience, during a rollout', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const { logger, lines } = capturedLog();
    const check = identityVerifier(createLocalJWKSet(signer.jwks()), legal, () => clock.now());
    const app = createUpstreamApp({ db, logger, datasets: [], identity: check });
    const res = await request(app)
      .get('/legal-documents?q=x')
      .set('authorization', await signer.authorization('directory', 'acc_1', 'pro'));
    expect(res.status).toBe(401);
    const line = lines.find((l) => l.msg === 'upstream answer');
    expect([line?.status, line?.identity_refused]).toEqual([401, 'ERR_JWT_CLAIM_VALIDATION_FAILED aud']);
  });

  it('keeps /healthz and /livez open to probes', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const app = appWith(identityVerifier(createLocalJWKSet(signer.jwks()), legal));
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect((await request(app).get('/livez')).status).toBe(200);
  });

  it('refuses another key, another algorithm, an expired token and a malformed header', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const check = identityVerifier(createLocalJWKSet(signer.jwks()), legal, () => clock.now());
    const other = await generateKeyPair('ES256');
    const iat = Math.floor(clock.now() / 1000);
    const stranger = await new SignJWT({ plan: 'enterprise' })
      .setProtectedHeader({ alg: 'ES256', kid: signer.jwks().keys[0]!.kid })
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(other.privateKey);
    expect(await check(`Bearer ${stranger}`)).toEqual({ refused: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    const hs = await new SignJWT({ plan: 'enterprise' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(iat + 60)
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await check(`Bearer ${hs}`)).toEqual({ refused: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    expect(await check(undefined)).toEqual({ refused: 'no assertion' });
    expect(await check('Basic abc')).toEqual({ refused: 'no assertion' });
    const token = await signer.authorization('legal', 'acc_2', 'free');
    expect(await check(token)).toBe(true);
    clock.advance(121_000);
    // Remembered as verified, but only until it expires.
    expect(await check(token)).toEqual({ refused: 'ERR_JWT_EXPIRED exp' });
  });

  it('fetches the keys from the JWKS URL a standalone upstream is given', async () => {
    // This verifier reads the real clock.
    const signer = await createIdentitySigner(opts, new ManualClock(Date.now()));
    const jwks = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(signer.jwks()));
    });
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
      const check = remoteIdentityVerifier(url, legal);
      expect(await check(await signer.authorization('legal', 'acc_3', 'pro'))).toBe(true);
      expect(await check('Bearer a.b.c')).toEqual({ refused: expect.stringMatching(/^ERR_/) });
    } finally {
      jwks.close();
    }
  });

  it('refuses an assertion the gateway signed for another upstream, or one from another issuer', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const check = identityVerifier(createLocalJWKSet(signer.jwks()), legal, () => clock.now());
    expect(await check(await signer.authorization('legal', 'acc_4', 'pro'))).toBe(true);
    expect(await check(await signer.authorization('admin-units', 'acc_4', 'pro'))).toEqual({
      refused: 'ERR_JWT_CLAIM_VALIDATION_FAILED aud',
    });
    const strict = identityVerifier(
      createLocalJWKSet(signer.jwks()),
      { ...legal, issuer: 'someone-else' },
      () => clock.now(),
    );
    expect(await strict(await signer.authorization('legal', 'acc_4', 'pro'))).toEqual({
      refused: 'ERR_JWT_CLAIM_VALIDATION_FAILED iss',
    });
    const stem = identityVerifier(createLocalJWKSet(signer.jwks()), { audience: 'lookup-upstream' }, () =>
      clock.now(),
    );
    expect(await stem(await signer.authorization('legal', 'acc_4', 'pro'))).toEqual({
      refused: 'ERR_JWT_CLAIM_VALIDATION_FAILED aud',
    });
  });

  it('refuses an assertion without an expiry or without a subject, though signed by a trusted key', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] });
    const check = identityVerifier(jwks, legal, () => clock.now());
    const iat = Math.floor(clock.now() / 1000);
    const base = () =>
      new SignJWT({ plan: 'pro' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(legal.issuer)
        .setAudience(legal.audience)
        .setIssuedAt(iat);
    const whole = await base()
      .setSubject('acc_5')
      .setExpirationTime(iat + 60)
      .sign(privateKey);
    expect(await check(`Bearer ${whole}`)).toBe(true);
    const noExpiry = await base().setSubject('acc_5').sign(privateKey);
    expect(await check(`Bearer ${noExpiry}`)).toEqual({ refused: 'ERR_JWT_CLAIM_VALIDATION_FAILED exp' });
    const noSubject = await base()
      .setExpirationTime(iat + 60)
      .sign(privateKey);
    expect(await check(`Bearer ${noSubject}`)).toEqual({ refused: 'ERR_JWT_CLAIM_VALIDATION_FAILED sub' });
  });
});
