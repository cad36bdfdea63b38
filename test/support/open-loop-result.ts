import type { OpenLoopResult } from '../../bench/open-loop-client';

/** One open-loop window's result with the given p99, for tests that fake the generator. */
export function openLoopResult(p99: number): OpenLoopResult {
  return {
    target_rps: 100,
    achieved_rps: 100,
    sent: 100,
    completed: 100,
    errors: 0,
    non2xx: 0,
    p50_ms: 1,
    p90_ms: 1.5,
    p99_ms: p99,
    p999_ms: p99 + 1,
    max_ms: p99 + 2,
    send_lag_max_ms: 0,
    sent_late: 0,
    p99_from_send_ms: p99,
  };
}
