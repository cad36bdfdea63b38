import { ERROR_CATALOGUE, ERROR_HEADERS } from './catalogue';
import type { ErrorCode } from './catalogue';

/** Optional fields an error body may carry (API reference, "Error bodies may also carry"). */
export interface ErrorExtras {
  message?: string;
  quota?: number;
  reset_in_seconds?: number;
  upgrade_url?: string;
  buy_credits_url?: string;
  /** Seconds for the Retry-After header (every 429). */
  retryAfter?: number;
  /** Extra response headers, e.g. Allow for 405. */
  headers?: Record<string, string>;
  /** Which parameter was wrong, for 422s. */
  param?: string;
}

/** A typed failure a policy throws; the renderer turns it into the envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly extras: ErrorExtras;
  constructor(
    readonly code: ErrorCode,
    extras: ErrorExtras = {},
  ) {
    super(extras.message ?? ERROR_CATALOGUE[code].message);
    this.status = ERROR_CATALOGUE[code].status;
    const fixed = ERROR_HEADERS[code];
    this.extras = fixed ? { ...extras, headers: { ...fixed, ...extras.headers } } : extras;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
