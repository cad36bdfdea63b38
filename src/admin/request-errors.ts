import { ApiError } from '../errors/api-error';

/**
 * The 4xx errors Express and body-parser raise before a route runs (they carry `status`, and
 * body-parser a `type`), in the catalogue's terms, each saying what was wrong; undefined for any
 * other error.
 */
export function requestError(err: unknown, bodyLimit: string): ApiError | undefined {
  if (err instanceof ApiError || typeof err !== 'object' || err === null) return undefined;
  const { status, type } = err as { status?: unknown; type?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  switch (type) {
    case 'entity.too.large':
      return new ApiError('payload_too_large', { message: `Nội dung yêu cầu vượt quá ${bodyLimit}.` });
    case 'entity.parse.failed':
      return new ApiError('invalid_request', { message: 'Nội dung JSON không hợp lệ.' });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError('invalid_request', {
        message: 'Nội dung yêu cầu phải là JSON UTF-8, không nén.',
      });
    case undefined:
      // The router, decoding a path segment such as %ff.
      if (err instanceof URIError || /decode param/i.test(String((err as Error).message)))
        return new ApiError('invalid_request', { message: 'Đường dẫn chứa mã phần trăm không hợp lệ.' });
      return new ApiError('invalid_request', { message: 'Yêu cầu không hợp lệ.' });
    default:
      return new ApiError('invalid_request', { message: 'Nội dung yêu cầu không đọc được.' });
  }
}
