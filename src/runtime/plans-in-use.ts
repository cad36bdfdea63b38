import type { AccountRepo } from '../accounts/account-repo';
import type { RuntimeConfig } from '../config/compile-config';
import type { Logger } from '../util/logger';

type Accounts = Pick<AccountRepo, 'accountsByPlan'>;

/**
 * Why `next` cannot replace `current`: it drops a plan accounts are still on. Such accounts would
 * be served as the lowest plan from the next request on (authenticate.ts), so a typo in a plan's
 * name would take every customer of that plan down to Free without a word. Plans are retired by
 * moving their accounts first (PATCH /admin/accounts/{id}), then removing them.
 */
export async function removedPlansInUse(
  accounts: Accounts,
  current: RuntimeConfig,
  next: RuntimeConfig,
): Promise<string[]> {
  const removed = current.planList.map((p) => p.name).filter((name) => !next.plans.has(name));
  if (removed.length === 0) return [];
  let held: Map<string, number>;
  try {
    held = await accounts.accountsByPlan();
  } catch (err) {
    return [
      `plans.yaml removes ${planNames(removed)}, and the database could not say whether accounts are on ${removed.length > 1 ? 'them' : 'it'} (${(err as Error).message})`,
    ];
  }
  return removed.flatMap((plan) => {
    const n = held.get(plan);
    return n === undefined
      ? []
      : [
          `plans.yaml removes plan ${plan}, which ${n} account${n > 1 ? 's are' : ' is'} on: move ${n > 1 ? 'them' : 'it'} to another plan first (PATCH /admin/accounts/{id})`,
        ];
  });
}

/**
 * At start, a warning for accounts on plans the configuration does not have: they are served as
 * the lowest plan. A start is not refused for it (a pod that cannot start serves nobody), but a
 * rollout that dropped a plan says so in every new pod's log.
 */
export async function warnAccountsOffPlans(
  accounts: Accounts,
  config: RuntimeConfig,
  logger: Logger,
): Promise<void> {
  try {
    const off = [...(await accounts.accountsByPlan())].filter(([plan]) => !config.plans.has(plan));
    if (off.length > 0)
      logger.warn(
        { plans: Object.fromEntries(off), served_as: config.planList[0]!.name },
        'accounts are on plans plans.yaml does not have; they are served as its lowest plan',
      );
  } catch {
    // The database's own checks report it unreachable; this warning is not worth a second line.
  }
}

const planNames = (names: readonly string[]): string =>
  names.length > 1 ? `plans ${names.join(', ')}` : `plan ${names[0]}`;
