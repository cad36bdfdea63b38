/** Errors of the upstream contract (DESIGN §4): the gateway maps them into its own envelope. */
export type UpstreamErrorCode = 'not_found' | 'invalid_request' | 'internal_error';

const STATUS: Record<UpstreamErrorCode, number> = {
  not_found: 404,
  invalid_request: 422,
  internal_error: 500,
};

export class UpstreamError extends Error {
  readonly status: number;
  constructor(
    readonly code: UpstreamErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

export function invalidParam(param: string, message: string): UpstreamError {
  return new UpstreamError('invalid_request', message, param);
}

export function notFound(message = 'Không tìm thấy bản ghi.'): UpstreamError {
  return new UpstreamError('not_found', message);
}
