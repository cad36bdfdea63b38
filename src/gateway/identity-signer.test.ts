import { createLocalJWKSet, jwtVerify } from 'jose';
import { ManualClock } from '../util/clock';
import { createIdentitySigner } from './identity-signer';

const opts = { issuer: 'lookup-gateway', audience: 'lookup-upstreams', ttlSeconds: 60 };

async function header(value: string | Promise<string>): Promise<string> {
  return typeof value === 'string' ? value : await value;
}

describe('the identity signer', () => {
  it('gives the upstream a Bearer JWT naming the account and plan, verifiable with its JWKS', async () => {
    const clock = new ManualClock(Date.now());
    const signer = await createIdentitySigner(opts, clock);
    const value = await header(signer.authorization('legal', 'acc_1', 'pro'));
    expect(value).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const { payload } = await jwtVerify(value.slice('Bearer '.length), createLocalJWKSet(signer.jwks()), {
      issuer: opts.issuer,
      audience: 'lookup-upstreams/legal',
      currentDate: new Date(clock.now()),
    });
    expect(payload).toMatchObject({ sub: 'acc_1', plan: 'pro' });
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  it('answers the same account and plan at once with the same value until half its life is gone', async () => {
    const clock = new ManualClock(Date.now());
    const signer = await createIdentitySigner(opts, clock);
    const first = await header(signer.authorization('legal', 'acc_1', 'pro'));
    clock.advance(29_000);
    expect(signer.authorization('legal', 'acc_1', 'pro')).toBe(first);
    clock.advance(2_000);
    const renewed = signer.authorization('legal', 'acc_1', 'pro');
    expect(typeof renewed).not.toBe('string');
    expect(await renewed).not.toBe(first);
  });

  it('signs for one upstream at a time: the aud names it, and another upstream never gets its value', async () => {
    const clock = new ManualClock(Date.now());
    const signer = await createIdentitySigner(opts, clock);
    const legal = await header(signer.authorization('legal', 'acc_1', 'pro'));
    const units = await header(signer.authorization('admin-units', 'acc_1', 'pro'));
    expect(units).not.toBe(legal);
    const keys = createLocalJWKSet(signer.jwks());
    const verify = (value: string, audience: string) =>
      jwtVerify(value.slice('Bearer '.length), keys, { audience, currentDate: new Date(clock.now()) });
    await expect(verify(units, 'lookup-upstreams/admin-units')).resolves.toBeDefined();
    await expect(verify(legal, 'lookup-upstreams/admin-units')).rejects.toThrow(/aud/);
  });

  it('keeps one value per account and plan: another plan or account never gets it', async () => {
    const clock = new ManualClock(Date.now());
    const signer = await createIdentitySigner(opts, clock);
    const pro = await header(signer.authorization('legal', 'acc_1', 'pro'));
    const free = await header(signer.authorization('legal', 'acc_1', 'free'));
    const other = await header(signer.authorization('legal', 'acc_2', 'pro'));
    expect(new Set([pro, free, other]).size).toBe(3);
    expect(signer.authorization('legal', 'acc_1', 'pro')).toBe(pro);
    expect(signer.authorization('legal', 'acc_1', 'free')).toBe(free);
    expect(signer.authorization('legal', 'acc_2', 'pro')).toBe(other);
  });
});
