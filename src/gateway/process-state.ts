import type { RuntimeConfig } from '../config/compile-config';
import { createDayRefusalMemo } from '../metering/day-refusal-memo';
import type { GatewayDeps } from './deps';
import { createIpWindow } from './policies/ip-throttle';
import { createBodyBudget } from './proxy/body-budget';

/** What the gateway keeps per process, not per loaded config: made once at start, kept across reloads. */
export type ProcessState = Pick<GatewayDeps, 'ipWindow' | 'dayRefusals' | 'upstreamMemory'>;

export function createProcessState(config: RuntimeConfig): ProcessState {
  return {
    ipWindow: createIpWindow(),
    dayRefusals: createDayRefusalMemo(),
    upstreamMemory: createBodyBudget(config.raw.gateway.upstream_memory_mb * 2 ** 20),
  };
}
