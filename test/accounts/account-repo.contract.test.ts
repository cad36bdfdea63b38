import { AccountRepo } from '../../src/accounts/account-repo';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { TEST_DATABASES } from '../support/databases';

// The same account store on PGlite (embedded) and PostgreSQL (production): the two drivers return
// dates and arrays in their own types, and the admin API reads the unique-violation code of both.
describe.each(TEST_DATABASES)('AccountRepo contract: $name', (database) => {
  let db: Db;
  let repo: AccountRepo;
  let n = 0;
  const fresh = (plan = 'pro') =>
    repo.createAccount({ id: `acc_c${++n}`, email: `c${n}@example.vn`, plan, email_verified: true });

  beforeAll(async () => {
    db = await database.open();
    await migrate(db, 'gateway');
    repo = new AccountRepo(db);
  });
  afterAll(() => db.close());

  it('creates an account and reads it back with dates as epoch milliseconds', async () => {
    const before = Date.now();
    const a = await fresh('starter');
    expect(a).toMatchObject({ plan: 'starter', email_verified: true, restricted_until: null });
    expect(a.created_at).toBeGreaterThanOrEqual(before - 60_000);
    expect(await repo.getAccount(a.id)).toEqual(a);
    expect(await repo.getAccount('acc_none')).toBeUndefined();
  });

  it('refuses a second account with the same e-mail with the unique-violation code the admin API reads', async () => {
    const a = await fresh();
    const err = await repo
      .createAccount({ id: 'acc_dup', email: a.email, plan: 'pro', email_verified: false })
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('23505');
  });

  it('patches only what it is given, and locks an account only when it is not locked now', async () => {
    const a = await fresh();
    const until = Date.UTC(2030, 0, 1);
    expect(await repo.patchAccount(a.id, { plan: 'enterprise' })).toMatchObject({
      plan: 'enterprise',
      email_verified: true,
    });
    expect(await repo.patchAccount(a.id, { restricted_until: until })).toMatchObject({
      restricted_until: until,
    });
    expect(await repo.patchAccount(a.id, { restricted_until: null })).toMatchObject({
      restricted_until: null,
    });
    expect(await repo.patchAccount('acc_none', { plan: 'pro' })).toBeUndefined();
    const now = Date.UTC(2029, 0, 1);
    expect(await repo.lockUntil(a.id, until, now)).toBe(true);
    expect(await repo.lockUntil(a.id, until + 1000, now)).toBe(false);
    expect(await repo.lockUntil(a.id, until + 1000, until)).toBe(true);
    expect((await repo.getAccount(a.id))!.restricted_until).toBe(until + 1000);
  });

  it('finds accounts by e-mail, oldest first, and counts them', async () => {
    const a = await fresh();
    const b = await fresh();
    expect((await repo.accountsByEmail([b.email, a.email, 'nobody@example.vn'])).map((x) => x.id)).toEqual([
      a.id,
      b.id,
    ]);
    expect(await repo.countAccounts()).toBe(n); // the refused duplicate made none
  });

  it('finds the account of an e-mail written in any case', async () => {
    const a = await repo.createAccount({
      id: 'acc_case',
      email: 'Mixed.Case@Example.vn',
      plan: 'pro',
      email_verified: true,
    });
    expect(await repo.accountByEmail('mixed.case@example.VN')).toEqual(a);
    expect(await repo.accountByEmail('nobody@example.vn')).toBeUndefined();
  });

  it('keeps keys with their allowlist and expiry, finds one by hash with its account, and revokes once', async () => {
    const a = await fresh();
    const expires = Date.UTC(2031, 5, 1, 12);
    const k = await repo.createKey({
      id: `key_c${n}`,
      account_id: a.id,
      key_hash: `hash_c${n}`,
      key_prefix: 'lk_live_ab',
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      expires_at: expires,
    });
    expect(k).toMatchObject({
      ip_allowlist: ['203.0.113.0/24', '2001:db8::/32'],
      expires_at: expires,
      revoked_at: null,
    });
    expect(await repo.listKeys(a.id)).toEqual([k]);
    const found = await repo.findByKeyHash(`hash_c${n}`);
    expect(found).toEqual({ key: k, account: a, key_hash: `hash_c${n}` });
    expect(await repo.findByKeyHash('hash_none')).toBeUndefined();
    const revoked = await repo.revokeKey(k.id);
    expect(revoked!.key.revoked_at).toEqual(expect.any(Number));
    // Revoking again keeps the first time.
    expect((await repo.revokeKey(k.id))!.key.revoked_at).toBe(revoked!.key.revoked_at);
    expect(await repo.revokeKey('key_none')).toBeUndefined();
  });
});
