import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Db } from '../db/db';
import { migrate } from '../db/migrate';
import { ManualClock } from '../util/clock';
import { TEST_DATABASES } from '../../test/support/databases';
import { SqlSigningKeyStore } from './identity-key-store';
import { createIdentitySigner } from './identity-signer';

const opts = { issuer: 'lookup-gateway', audience: 'lookup-upstream', ttlSeconds: 60 };

async function token(value: string | Promise<string>): Promise<string> {
  return (await value).slice('Bearer '.length);
}

describe.each(TEST_DATABASES)('identity signing key shared through $name', (testDb) => {
  let db: Db;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    db = await testDb.open();
    expect(await migrate(db, 'gateway')).toContain('003_identity_key.sql');
  });
  afterAll(() => db.close());

  it("lets any replica's JWKS verify another replica's assertions, and a restarted one's", async () => {
    const a = await createIdentitySigner(opts, clock, new SqlSigningKeyStore(db));
    const b = await createIdentitySigner(opts, clock, new SqlSigningKeyStore(db));
    expect(b.jwks()).toEqual(a.jwks());
    const fromA = await token(a.authorization('legal', 'acc_1', 'pro'));
    const { payload } = await jwtVerify(fromA, createLocalJWKSet(b.jwks()), {
      issuer: opts.issuer,
      audience: `${opts.audience}/legal`,
      currentDate: new Date(clock.now()),
    });
    expect(payload).toMatchObject({ sub: 'acc_1', plan: 'pro' });
    const restarted = await createIdentitySigner(opts, clock, new SqlSigningKeyStore(db));
    expect(restarted.jwks()).toEqual(a.jwks());
  });

  it('settles replicas starting together on one key, whichever stored first', async () => {
    await db.query('DELETE FROM identity_signing_key');
    const signers = await Promise.all(
      Array.from({ length: 5 }, () => createIdentitySigner(opts, clock, new SqlSigningKeyStore(db))),
    );
    const kids = new Set(signers.map((s) => s.jwks().keys[0]!.kid));
    expect(kids.size).toBe(1);
    const { rows } = await db.query<{ kid: string }>('SELECT kid FROM identity_signing_key');
    expect(rows.map((r) => r.kid)).toEqual([...kids]);
  });

  it('serves only the public half in the JWKS', async () => {
    const signer = await createIdentitySigner(opts, clock, new SqlSigningKeyStore(db));
    const [jwk] = signer.jwks().keys;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
  });
});

describe('identity signing key without a store', () => {
  it('makes a key of its own for each signer', async () => {
    const clock = new ManualClock(Date.now());
    const a = await createIdentitySigner(opts, clock);
    const b = await createIdentitySigner(opts, clock);
    expect(a.jwks().keys[0]!.kid).not.toBe(b.jwks().keys[0]!.kid);
  });
});
