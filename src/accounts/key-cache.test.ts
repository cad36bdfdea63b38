import { ManualClock } from '../util/clock';
import type { AccountRepo } from './account-repo';
import type { Account, ApiKeyRecord } from './account-types';
import { KeyCache } from './key-cache';

type Found = Awaited<ReturnType<AccountRepo['findByKeyHash']>>;

const HASH = 'a'.repeat(64);
const key: ApiKeyRecord = {
  id: 'key_1',
  account_id: 'acc_1',
  key_prefix: 'lk_abcd',
  ip_allowlist: [],
  expires_at: null,
  revoked_at: null,
  created_at: 0,
};
const account: Account = {
  id: 'acc_1',
  email: 'a@example.vn',
  plan: 'pro',
  email_verified: true,
  restricted_until: null,
  created_at: 0,
};
const before: Found = { key, account, key_hash: HASH };
const revoked: Found = { key: { ...key, revoked_at: 1 }, account, key_hash: HASH };

/** A database whose reads of the key are answered by the test, one by one. */
function heldRepo() {
  const reads: ((found: Found) => void)[] = [];
  const repo: Pick<AccountRepo, 'findByKeyHash'> = {
    findByKeyHash: () => new Promise<Found>((resolve) => reads.push(resolve)),
  };
  const nextRead = async () => {
    for (let waited = 0; reads.length === 0; waited += 5) {
      if (waited > 2000) throw new Error('the cache did not read the key again');
      await new Promise((r) => setTimeout(r, 5));
    }
    return reads.shift()!;
  };
  return { repo, nextRead, reads };
}

const options = { ttlMs: 300_000, negativeTtlMs: 10_000, maxEntries: 100 };

describe('KeyCache: an invalidation while a read is on its way', () => {
  it.each([
    ['the key', (c: KeyCache) => c.invalidateKey(HASH)],
    ['its account', (c: KeyCache) => c.invalidateAccount('acc_1')],
    ['everything (a resync)', (c: KeyCache) => c.clear()],
  ])(
    'reads the key again when %s is invalidated meanwhile, and keeps the newer answer',
    async (_what, invalidate) => {
      const db = heldRepo();
      const cache = new KeyCache(db.repo, new ManualClock(0), options);
      const got = cache.get(HASH);
      const first = await db.nextRead();
      invalidate(cache); // the revocation is committed and announced while the first answer travels
      first(before);
      (await db.nextRead())(revoked);
      expect((await got)?.key.revoked_at).toBe(1);
      expect(cache.peek(HASH)?.key.revoked_at).toBe(1);
      expect(db.reads).toHaveLength(0);
    },
  );

  it('keeps an answer a second only when invalidations keep coming while it is read', async () => {
    const db = heldRepo();
    const clock = new ManualClock(0);
    const cache = new KeyCache(db.repo, clock, options);
    const got = cache.get(HASH);
    for (let i = 0; i < 4; i++) {
      const read = await db.nextRead();
      cache.invalidateAccount('acc_1');
      read(before);
    }
    expect((await got)?.key.id).toBe('key_1');
    expect(cache.peek(HASH)).toBeDefined();
    clock.advance(1001);
    expect(cache.peek(HASH)).toBeUndefined();
  });

  it('reads once and keeps the answer for the TTL when nothing changes meanwhile', async () => {
    const db = heldRepo();
    const clock = new ManualClock(0);
    const cache = new KeyCache(db.repo, clock, options);
    const got = cache.get(HASH);
    (await db.nextRead())(before);
    expect((await got)?.key.id).toBe('key_1');
    clock.advance(299_000);
    expect(cache.peek(HASH)?.key.id).toBe('key_1');
    expect(db.reads).toHaveLength(0);
  });
});
