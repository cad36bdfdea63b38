import { AccountRepo } from '../accounts/account-repo';
import { compileConfig } from '../config/compile-config';
import { loadRawConfig } from '../config/load-config';
import type { Db } from '../db/db';
import { migrate } from '../db/migrate';
import { openTestPglite } from '../../test/support/pglite-template';
import { CONFIG_DIR } from '../../test/support/gateway-harness';
import { createDemoAccounts, findDemoAccounts } from './demo-accounts';

const config = compileConfig(loadRawConfig(CONFIG_DIR));
const plans = config.planList.map((p) => p.name);

/** Runs the test on a fresh migrated PGlite and closes it after. */
async function withRepo(test: (repo: AccountRepo, db: Db) => Promise<void>): Promise<void> {
  const db = await openTestPglite();
  try {
    await migrate(db, 'gateway');
    await test(new AccountRepo(db), db);
  } finally {
    await db.close();
  }
}

describe('demo accounts of an embedded install', () => {
  it('are found again in the plans order even when the store returns them in another order', () =>
    withRepo(async (repo, db) => {
      const made = (await createDemoAccounts(repo, config)) ?? [];
      expect(made.map((d) => d.plan)).toEqual(plans);
      // Accounts made in one millisecond tie on created_at; make the store's order the reverse.
      for (const [i, d] of made.entries()) {
        await db.query(
          `UPDATE accounts SET created_at = now() - make_interval(mins => $2::int) WHERE id = $1`,
          [d.accountId, i],
        );
      }
      expect((await repo.accountsByEmail(made.map((d) => d.email))).map((a) => a.plan)).toEqual(
        [...plans].reverse(),
      );
      expect((await findDemoAccounts(repo, config)).map((d) => d.plan)).toEqual(plans);
    }));

  it('are made only on a first start', () =>
    withRepo(async (repo) => {
      expect(await createDemoAccounts(repo, config)).toHaveLength(plans.length);
      expect(await createDemoAccounts(repo, config)).toBeUndefined();
    }));
});
