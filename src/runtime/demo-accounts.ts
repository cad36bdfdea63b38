import type { AccountRepo } from '../accounts/account-repo';
import { newId } from '../accounts/api-keys';
import { issueKey } from '../accounts/issue-key';
import type { RuntimeConfig } from '../config/compile-config';

export interface DemoKey {
  plan: string;
  email: string;
  accountId: string;
  key: string;
}

/** First start of an embedded install: one verified demo account per plan, each with one key. */
export async function createDemoAccounts(
  repo: AccountRepo,
  config: RuntimeConfig,
): Promise<DemoKey[] | undefined> {
  if ((await repo.countAccounts()) > 0) return undefined;
  const out: DemoKey[] = [];
  for (const plan of config.planList) {
    const email = `demo-${plan.name}@example.vn`;
    const acc = await repo.createAccount({ id: newId('acc_'), email, plan: plan.name, email_verified: true });
    const { key } = await issueKey(repo, acc.id);
    out.push({ plan: plan.name, email, accountId: acc.id, key });
  }
  return out;
}
