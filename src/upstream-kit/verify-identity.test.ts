import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, createLocalJWKSet, generateKeyPair } from 'jose';
import request from 'supertest';
import type { Db } from '../db/db';
import { createIdentitySigner } from '../gateway/identity-signer';
import { ManualClock } from '../util/clock';
import { silentLogger } from '../util/logger';
import { createUpstreamApp } from './upstream-app';
import { identityVerifier, remoteIdentityVerifier } from './verify-identity';
import type { IdentityCheck } from './verify-identity';

const db: Db = {
  kind: 'pglite',
  query: <R>() => Promise.resolve({ rows: [] as R[] }),
  transaction: () => Promise.reject(new Error('unused')),
  exec: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
const clock = new ManualClock(Date.UTC(2026, 10, 28, 12));
const opts = { issuer: 'lookup-gateway', audience: 'lookup-upstream', ttlSeconds: 120 };
const appWith = (identity: IdentityCheck) =>
  createUpstreamApp({ db, logger: silentLogger(), datasets: [], identity });

describe('an upstream that verifies the gateway identity assertion', () => {
  it("lets the gateway's assertion through, and answers a request without one 401", async () => {
    const signer = await createIdentitySigner(opts, clock);
    const app = appWith(identityVerifier(createLocalJWKSet(signer.jwks()), () => clock.now()));
    const bare = await request(app).get('/legal-documents?q=x');
    expect([bare.status, bare.body.code]).toEqual([401, 'unauthorized']);
    // Past the check, an upstream without datasets answers 404: the request was let in.
    const signed = await request(app)
      .get('/legal-documents?q=x')
      .set('authorization', await signer.authorization('acc_1', 'pro'));
    expect(signed.status).toBe(404);
  });

  it('keeps /healthz and /livez open to probes', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const app = appWith(identityVerifier(createLocalJWKSet(signer.jwks())));
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect((await request(app).get('/livez')).status).toBe(200);
  });

  it('refuses another key, another algorithm, no expiry, an expired token and a malformed header', async () => {
    const signer = await createIdentitySigner(opts, clock);
    const check = identityVerifier(createLocalJWKSet(signer.jwks()), () => clock.now());
    const other = await generateKeyPair('ES256');
    const iat = Math.floor(clock.now() / 1000);
    const stranger = await new SignJWT({ plan: 'enterprise' })
      .setProtectedHeader({ alg: 'ES256', kid: signer.jwks().keys[0]!.kid })
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(other.privateKey);
    expect(await check(`Bearer ${stranger}`)).toBe(false);
    const hs = await new SignJWT({ plan: 'enterprise' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(iat + 60)
      .sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await check(`Bearer ${hs}`)).toBe(false);
    expect(await check(undefined)).toBe(false);
    expect(await check('Basic abc')).toBe(false);
    const token = await signer.authorization('acc_2', 'free');
    expect(await check(token)).toBe(true);
    clock.advance(121_000);
    // Remembered as verified, but only until it expires.
    expect(await check(token)).toBe(false);
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
      const check = remoteIdentityVerifier(url);
      expect(await check(await signer.authorization('acc_3', 'pro'))).toBe(true);
      expect(await check('Bearer a.b.c')).toBe(false);
    } finally {
      jwks.close();
    }
  });
});
