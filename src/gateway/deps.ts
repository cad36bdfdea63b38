import type { AccountRepo } from '../accounts/account-repo';
import type { KeyCache } from '../accounts/key-cache';
import type { CreditLedger } from '../metering/credit-ledger';
import type { BalanceMemo } from '../metering/balance-memo';
import type { DayRefusalMemo } from '../metering/day-refusal-memo';
import type { MeterStore } from '../metering/meter-store';
import type { GatewayMetrics } from '../observability/gateway-metrics';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import type { IdentitySigner } from './identity-signer';
import type { IpWindow } from './policies/ip-throttle';
import type { BodyBudget } from './proxy/body-budget';

/** What the gateway needs from outside; passed in, never imported as singletons. */
export interface GatewayDeps {
  clock: Clock;
  logger: Logger;
  accounts: AccountRepo;
  keyCache: KeyCache;
  meter: MeterStore;
  credits: CreditLedger;
  /** What a day refusal past the quota told each account in the last second (meter policy). */
  dayRefusals: DayRefusalMemo;
  /** Credit balances read in the last second (the RateLimit "month" remainder past the quota). */
  balances: BalanceMemo;
  identity: IdentitySigner;
  /** Per-IP request counts, kept across config reloads. */
  ipWindow: IpWindow;
  /** Bytes of upstream answers held at once, kept across config reloads. */
  upstreamMemory: BodyBudget;
  metrics: GatewayMetrics;
  /** Called after a response is sent with the ids it returned (bulk-extraction watch). */
  onIdsReturned?: (
    accountId: string,
    dataset: string,
    ids: string[],
    plan: string,
    lockEnded: boolean,
  ) => void;
}
