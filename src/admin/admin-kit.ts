import type { ZodType } from 'zod';
import type { AccountRepo } from '../accounts/account-repo';
import type { Account } from '../accounts/account-types';
import type { CompiledPlan, RuntimeConfig } from '../config/compile-config';
import { ApiError } from '../errors/api-error';
import type { CreditLedger } from '../metering/credit-ledger';
import type { MeterStore } from '../metering/meter-store';
import type { InvalidationBus, InvalidationMessage } from '../stores/invalidation-bus';
import type { Clock } from '../util/clock';
import { isoOrNull } from '../util/iso-time';
import type { Logger } from '../util/logger';
import type { AdminVerifier } from './admin-auth';

export interface AdminDeps {
  config: () => RuntimeConfig;
  accounts: AccountRepo;
  credits: CreditLedger;
  meter: MeterStore;
  bus: InvalidationBus;
  clock: Clock;
  logger: Logger;
  verify: AdminVerifier;
  /** Extra read-only sections of GET /admin/accounts/{id} (e.g. bulk-extraction shares). */
  accountDetails?: (account: Account) => Promise<Record<string, unknown>>;
  /** Called before an admin lifts an account's lock (e.g. the bulk watch forgets what led to it). */
  beforeUnlock?: (accountId: string) => Promise<void>;
}

/** The body as its schema reads it, or 422 invalid_request naming the first field at fault. */
export function parse<T>(schema: ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ApiError('invalid_request', { message: `${i.path.join('.') || 'body'}: ${i.message}` });
  }
  return r.data;
}

/** The account as the admin API shows it. */
export interface AccountView {
  id: string;
  email: string;
  plan: string;
  email_verified: boolean;
  extra_credits: number;
  restricted_until: string | null;
  created_at: string | null;
}

/** What the admin routes share: their dependencies and the lookups and notices every resource makes. */
export interface AdminKit {
  deps: AdminDeps;
  /** The account, or 404 not_found. */
  account: (id: string) => Promise<Account>;
  /** The account of an e-mail (in any case), or 404 not_found. */
  accountByEmail: (email: string) => Promise<Account>;
  view: (a: Account) => Promise<AccountView>;
  /** The plan of that name, or 422 invalid_request. */
  plan: (name: string) => CompiledPlan;
  tell: (msg: InvalidationMessage) => Promise<void>;
  changed: (accountId: string) => Promise<void>;
}

/**
 * Text PostgreSQL keeps as sent: no NUL (an id with one names nothing that can exist, and asked
 * for, it failed the query: a 500), no lone surrogate (written as U+FFFD, so two references that
 * differ only there became one, and the second purchase read as a retry of the first).
 */
export const canBeStored = (s: string): boolean => !s.includes('\u0000') && !/\p{Surrogate}/u.test(s);

export function createAdminKit(deps: AdminDeps): AdminKit {
  const found = (a: Account | undefined): Account => {
    if (!a) throw new ApiError('not_found', { message: 'Không tìm thấy tài khoản.' });
    return a;
  };
  const account = async (id: string) =>
    found(canBeStored(id) ? await deps.accounts.getAccount(id) : undefined);
  const accountByEmail = async (email: string) =>
    found(canBeStored(email) ? await deps.accounts.accountByEmail(email) : undefined);
  const view = async (a: Account) => ({
    id: a.id,
    email: a.email,
    plan: a.plan,
    email_verified: a.email_verified,
    extra_credits: await deps.credits.balance(a.id),
    restricted_until: isoOrNull(a.restricted_until),
    created_at: isoOrNull(a.created_at),
  });
  const plan = (name: string) => {
    const p = deps.config().plans.get(name);
    if (!p) throw new ApiError('invalid_request', { message: `plan: không có gói "${name}"` });
    return p;
  };
  // The change is stored by then: a bus that cannot publish (Redis down) must not turn it into a 500
  // that a billing system retries. This replica applies it at once and the bus sends it again until
  // it goes; a replica whose own pub/sub is down keeps cached entries at most a second.
  const tell = (msg: InvalidationMessage) =>
    deps.bus
      .publish(msg)
      .catch((err: unknown) =>
        deps.logger.warn(
          { err, change: msg.type },
          'change stored; not yet published to other replicas, sent again until it is',
        ),
      );
  const changed = (accountId: string) => tell({ type: 'account', accountId });

  return { deps, account, accountByEmail, view, plan, tell, changed };
}
