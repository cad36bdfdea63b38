import { ApiError } from '../../errors/api-error';

/** Seconds a caller is told to wait after an upstream failure. */
export const UPSTREAM_RETRY_AFTER_S = 5;

/**
 * The 503 for every way an upstream can fail: unreachable, timed out, a 5xx, or an answer the
 * gateway cannot read. All of them carry the same Retry-After, so a client's back-off does not
 * depend on which one it was.
 */
export function upstreamUnavailable(): ApiError {
  return new ApiError('search_unavailable', { retryAfter: UPSTREAM_RETRY_AFTER_S });
}
