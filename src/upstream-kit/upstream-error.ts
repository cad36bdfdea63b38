/**
 * Errors of the upstream contract (DESIGN §4): the gateway maps them into its own envelope.
 * `not_found` is an unknown id (it counts against the caller's quota); `unknown_endpoint` is a path
 * this service does not serve, which the gateway reads as its own misconfiguration (a 503 that
 * does not count). `unknown_parameter` is a parameter the gateway sends (datasets.yaml declares it)
 * that this service does not read: answered with data, it would be data unfiltered; refused, the
 * gateway logs it and answers 503, which does not count either.
 */
export type UpstreamErrorCode =
  'not_found' | 'unknown_endpoint' | 'unknown_parameter' | 'invalid_request' | 'internal_error';

const STATUS: Record<UpstreamErrorCode, number> = {
  not_found: 404,
  unknown_endpoint: 404,
  unknown_parameter: 422,
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

export function unknownEndpoint(): UpstreamError {
  return new UpstreamError('unknown_endpoint', 'Không tìm thấy endpoint.');
}

export function unknownParameter(param: string): UpstreamError {
  return new UpstreamError('unknown_parameter', `Dịch vụ này không đọc tham số ${param}.`, param);
}
