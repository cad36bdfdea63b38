import type { Response } from 'express';
import { ApiError, isApiError } from './api-error';
import { DatabaseUnavailableError } from '../db/db';
import type { ErrorCode } from './catalogue';
import type { Logger } from '../util/logger';

export interface ErrorBody {
  success: false;
  code: ErrorCode;
  message: string;
  quota?: number;
  reset_in_seconds?: number;
  upgrade_url?: string;
  buy_credits_url?: string;
}

/**
 * The envelope holds the fields the reference lists for errors and no other: the parameter at fault
 * is named in the message, and in the access line as `param`.
 */
export function errorBody(err: ApiError): ErrorBody {
  const { quota, reset_in_seconds, upgrade_url, buy_credits_url } = err.extras;
  const body: ErrorBody = { success: false, code: err.code, message: err.message };
  if (quota !== undefined) body.quota = quota;
  if (reset_in_seconds !== undefined) body.reset_in_seconds = reset_in_seconds;
  if (upgrade_url !== undefined) body.upgrade_url = upgrade_url;
  if (buy_credits_url !== undefined) body.buy_credits_url = buy_credits_url;
  return body;
}

// Not the catalogue's message for search_unavailable, which speaks of search: a key lookup, a credit
// spend or /v1/me waited for the database.
const DATABASE_AWAY = 'Dịch vụ tạm thời gián đoạn, vui lòng thử lại sau.';

/**
 * Anything that is not an ApiError is an internal error, its details never reaching the client;
 * except the database being unreachable, which is a dependency's failure to retry after: the
 * public API's one 503 code (search_unavailable), or the admin API's own (service_unavailable).
 */
export function toApiError(
  err: unknown,
  unavailable: 'search_unavailable' | 'service_unavailable' = 'search_unavailable',
): ApiError {
  if (isApiError(err)) return err;
  if (err instanceof DatabaseUnavailableError)
    return new ApiError(unavailable, { message: DATABASE_AWAY, retryAfter: 5 });
  return new ApiError('internal_error');
}

/**
 * Logs a failure that is not an ApiError (so not the caller's): the database being away as one
 * line, anything else, a bug, with its stack under `bug`.
 */
export function logFailure(
  logger: Logger,
  err: unknown,
  bug: string,
  fields: Record<string, unknown> = {},
): void {
  if (err instanceof DatabaseUnavailableError)
    logger.warn({ ...fields, err: err.message }, 'database unavailable');
  else logger.error({ ...fields, err }, bug);
}

/** The one place that writes an error envelope. */
export function renderError(res: Response, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (err.extras.retryAfter !== undefined)
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.extras.retryAfter))));
  if (err.extras.headers) for (const [k, v] of Object.entries(err.extras.headers)) res.setHeader(k, v);
  res.status(err.status).json(errorBody(err));
}
