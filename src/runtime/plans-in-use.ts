import type { AccountRepo } from '../accounts/account-repo';
import type { RuntimeConfig } from '../config/compile-config';

/**
 * Why `next` cannot replace `current`: it drops a plan accounts are still on. Such accounts would
 * be served as the lowest plan from the next request on (authenticate.ts), so a typo in a plan's
 * name would take every customer of that plan down to Free without a word. Plans are retired by
 * moving their accounts first (PATCH /admin/accounts/{id}), then removing them.
 */
export async function removedPlansInUse(
  accounts: Pick<AccountRepo, 'accountsOnPlans'>,
  current: RuntimeConfig,
  next: RuntimeConfig,
): Promise<string[]> {
  const removed = current.planList.map((p) => p.name).filter((name) => !next.plans.has(name));
  if (removed.length === 0) return [];
  let held: Map<string, number>;
  try {
    held = await accounts.accountsOnPlans(removed);
  } catch (err) {
    return [
      `plans.yaml removes ${planNames(removed)}, and the database could not say whether accounts are on ${removed.length > 1 ? 'them' : 'it'} (${(err as Error).message})`,
    ];
  }
  return [...held].map(
    ([plan, n]) =>
      `plans.yaml removes plan ${plan}, which ${n} account${n > 1 ? 's are' : ' is'} on: move ${n > 1 ? 'them' : 'it'} to another plan first (PATCH /admin/accounts/{id})`,
  );
}

const planNames = (names: readonly string[]): string =>
  names.length > 1 ? `plans ${names.join(', ')}` : `plan ${names[0]}`;
