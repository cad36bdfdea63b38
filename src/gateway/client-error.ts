import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors/api-error';
import { errorBody } from '../errors/render-error';
import { JSON_TYPE } from './response/finish';

/**
 * Why this exists: a request node's HTTP parser rejects (a request line or header over
 * `maxHeaderSize`, a header line without a colon, a target with a space in it) never reaches the
 * app, and node answers it with a bare `400` or `431` and no body. The reference promises the
 * envelope and an `X-Request-Id` on every response, so these get them too: `422 invalid_request`,
 * as a URL over the configured length already does, and the connection is closed (the parser
 * cannot find where the next request would begin).
 *
 * A request that did not arrive in time (`requestTimeout`, `headersTimeout`) is closed without an
 * answer, as nginx does: nothing was asked.
 */
export function answerClientErrors(server: Server): Server {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!canAnswer(err, socket)) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(err.code), () => socket.destroy());
  });
  return server;
}

interface SocketWithMessage extends Duplex {
  /** The response in flight on this connection, if any (node's own field). */
  _httpMessage?: { headersSent?: boolean } | null;
}

function canAnswer(err: NodeJS.ErrnoException, socket: SocketWithMessage): boolean {
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) return false;
  // A response already started on this connection cannot be followed by another one.
  return !socket._httpMessage?.headersSent;
}

const TOO_LONG = 'URL hoặc tiêu đề HTTP quá dài.';
const MALFORMED = 'Yêu cầu HTTP không đúng định dạng.';

/** The whole HTTP response, head and envelope, for a request the parser rejected. */
export function clientErrorResponse(parserCode: string | undefined): string {
  const tooLong = parserCode === 'HPE_HEADER_OVERFLOW' || parserCode === 'HPE_CHUNK_EXTENSIONS_OVERFLOW';
  const err = new ApiError('invalid_request', { message: tooLong ? TOO_LONG : MALFORMED });
  const body = JSON.stringify(errorBody(err));
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}`,
    `Content-Type: ${JSON_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
