/**
 * What a round's garbage collections cost a gateway: its full GCs and scavenge time from its
 * /metrics and, when it runs with --trace-gc-nvp, its old generation's growth per request
 * (gc-growth.ts).
 */
import { FULL_GC_SERIES, gatewayMetrics } from './bench-lib';
import { perRequest } from './gc-growth';
import type { GcGrowth } from './gc-growth';
import type { Gateway } from './gateway-setup';

export interface RoundCollections {
  /** Full (mark-compact) collections of the gateway during the round, from its /metrics. */
  major_gcs: number;
  /** Its scavenges' time on the main thread per 1,000 requests of the round (ms), from the same. */
  scavenge_ms_per_1k: number;
  /** With --trace-gc-nvp: bytes the heap outside the young generation grew by, per request of the round. */
  old_growth_b_per_req?: number;
  /** With --trace-gc-nvp: bytes scavenges promoted, per request of the round. */
  promoted_b_per_req?: number;
}

export interface GcTotals {
  major: number;
  /** Seconds the gateway's main thread spent in scavenges since its start. */
  minorSeconds: number;
}

export async function gcTotals(gw: Gateway): Promise<GcTotals> {
  const value = await gatewayMetrics(gw.adminPort);
  return {
    major: value(FULL_GC_SERIES) ?? 0,
    minorSeconds: value('nodejs_gc_duration_seconds_sum{kind="minor"}') ?? 0,
  };
}

/** What the round's collections cost: full GCs, and scavenge time per 1,000 requests (ms). */
export async function gcOfRound(
  gw: Gateway,
  before: GcTotals,
  requests: number,
): Promise<Pick<RoundCollections, 'major_gcs' | 'scavenge_ms_per_1k'>> {
  const after = await gcTotals(gw);
  const ms = ((after.minorSeconds - before.minorSeconds) * 1e6) / Math.max(1, requests);
  return { major_gcs: after.major - before.major, scavenge_ms_per_1k: Math.round(ms * 100) / 100 };
}

/** The round's old-generation growth and promotion per request, when the gateway's GC is traced. */
export function growthOfRound(growth: GcGrowth | undefined, requests: number): Partial<RoundCollections> {
  if (!growth) return {};
  const g = growth.read();
  return {
    old_growth_b_per_req: perRequest(g.grown, requests),
    promoted_b_per_req: perRequest(g.promoted, requests),
  };
}
