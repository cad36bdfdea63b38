/**
 * Why a call to an upstream failed, as `lookup_upstream_failures_total` counts it (a closed list:
 * the label stays bounded). The caller gets one 503 for all of them (upstream-unavailable.ts).
 */
export const UPSTREAM_FAILURE_REASONS = [
  'timeout', //       no answer within timeout_ms
  'no_connection', // the deadline ran out while the call waited for one of pool_size connections
  'network', //       refused, reset, DNS, TLS: the connection failed
  'too_large', //     an answer over the bound on one answer
  'memory_bound', //  answers held at once at upstream_memory_mb
  'server_error', //  a 5xx: the upstream says it failed (its database, its own bug)
  'bad_status', //    any other status outside the contract (a 3xx, 401, 400, a 404 or 422 without its code)
  'bad_body', //      an answer that is not JSON or not the contract's envelope
] as const;

export type UpstreamFailureReason = (typeof UPSTREAM_FAILURE_REASONS)[number];

/** How a call to an upstream failed; what undici throws is wrapped as a `network` failure. */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure';
  /** Milliseconds it waited in the gateway before it was sent (all of them, if it never was). */
  waitedMs = 0;
  constructor(
    message: string,
    readonly reason: UpstreamFailureReason,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}
