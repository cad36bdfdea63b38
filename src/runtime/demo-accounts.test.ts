import { join } from 'node:path';
import { AccountRepo } from '../accounts/account-repo';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import { migrate } from '../db/migrate';
import { openPgliteDb } from '../db/pglite-db';
import { createDemoAccounts, findDemoAccounts } from './demo-accounts';

const config = compileConfig(loadRawConfig(join(__dirname, '..', '..', 'config')));

describe('demo accounts of an embedded install', () => {
  it('are found again in the plans order even when the store returns them in another order', async () => {
    const db = await openPgliteDb();
    try {
      await migrate(db, 'gateway');
      const repo = new AccountRepo(db);
      const made = await createDemoAccounts(repo, config);
      const plans = config.planList.map((p) => p.name);
      expect(made?.map((d) => d.plan)).toEqual(plans);
      // Accounts made in one millisecond tie on created_at; make the store's order the reverse.
      for (const [i, d] of (made ?? []).entries()) {
        await db.query(
          `UPDATE accounts SET created_at = now() - make_interval(mins => $2::int) WHERE id = $1`,
          [d.accountId, i],
        );
      }
      expect((await repo.accountsByEmail(made!.map((d) => d.email))).map((a) => a.plan)).toEqual(
        [...plans].reverse(),
      );
      expect((await findDemoAccounts(repo, config)).map((d) => d.plan)).toEqual(plans);
    } finally {
      await db.close();
    }
  });

  it('are made only on a first start', async () => {
    const db = await openPgliteDb();
    try {
      await migrate(db, 'gateway');
      const repo = new AccountRepo(db);
      expect(await createDemoAccounts(repo, config)).toHaveLength(config.planList.length);
      expect(await createDemoAccounts(repo, config)).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
