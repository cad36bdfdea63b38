import type { RuntimeConfig } from '../config/compile-config';
import { createBalanceMemo } from '../metering/balance-memo';
import type { CreditLedger } from '../metering/credit-ledger';
import { createDayRefusalMemo } from '../metering/day-refusal-memo';
import type { GatewayDeps } from './deps';
import { createIpWindow } from './policies/ip-throttle';
import { createBodyBudget } from './proxy/body-budget';

/** What the gateway keeps per process, not per loaded config: made once at start, kept across reloads. */
export type ProcessState = Pick<GatewayDeps, 'ipWindow' | 'dayRefusals' | 'balances' | 'upstreamMemory'>;

export function createProcessState(
  config: RuntimeConfig,
  credits: Pick<CreditLedger, 'balance'>,
): ProcessState {
  return {
    ipWindow: createIpWindow(),
    dayRefusals: createDayRefusalMemo(),
    balances: createBalanceMemo(credits),
    upstreamMemory: createBodyBudget(config.raw.gateway.upstream_memory_mb * 2 ** 20),
  };
}
