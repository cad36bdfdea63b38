import type { AccountRepo } from '../accounts/account-repo';
import { newId } from '../accounts/api-keys';
import { issueKey } from '../accounts/issue-key';
import type { RuntimeConfig } from '../config/compile-config';

export interface DemoAccount {
  plan: string;
  email: string;
  accountId: string;
}

export interface DemoKey extends DemoAccount {
  key: string;
}

const demoEmail = (plan: string): string => `demo-${plan}@example.vn`;

/** First start of an embedded install: one verified demo account per plan, each with one key. */
export async function createDemoAccounts(
  repo: AccountRepo,
  config: RuntimeConfig,
): Promise<DemoKey[] | undefined> {
  if ((await repo.countAccounts()) > 0) return undefined;
  const out: DemoKey[] = [];
  for (const plan of config.planList) {
    const email = demoEmail(plan.name);
    const acc = await repo.createAccount({ id: newId('acc_'), email, plan: plan.name, email_verified: true });
    const { key } = await issueKey(repo, acc.id);
    out.push({ plan: plan.name, email, accountId: acc.id, key });
  }
  return out;
}

/** The demo accounts a first start made and that are still there (keys are stored only as hashes). */
export async function findDemoAccounts(repo: AccountRepo, config: RuntimeConfig): Promise<DemoAccount[]> {
  const emails = config.planList.map((p) => demoEmail(p.name));
  const accounts = await repo.accountsByEmail(emails);
  // The store lists them oldest first, and accounts made in one millisecond tie there at random;
  // the banner lists them in the plans' order.
  const rank = (email: string): number => emails.indexOf(email);
  return accounts
    .map((a) => ({ plan: a.plan, email: a.email, accountId: a.id }))
    .sort((x, y) => rank(x.email) - rank(y.email));
}
