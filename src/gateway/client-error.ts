import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors/api-error';
import { errorBody } from '../errors/render-error';
import { JSON_TYPE } from './response/finish';

/**
 * Why this exists: a request node's HTTP parser rejects (a request line or header over
 * `maxHeaderSize`, a header line without a colon, a target with a space in it, body framing it
 * cannot follow) never reaches the app, and node answers it with a bare `400` or `431` and no body.
 * The reference promises the envelope and an `X-Request-Id` on every response, so these get them
 * too: `422 invalid_request`, as a URL over the configured length already does, and the connection
 * is closed (the parser cannot find where the next request would begin).
 *
 * The requests the parser did accept whole on that connection before (pipelined) are answered
 * first, in order: they were served and counted, so their answers must reach the caller, and the
 * 422 comes last. A request whose own body framing failed is not waited for: its body will never
 * end, and a handler reading it would hold the connection open until the request timeout.
 *
 * A request that did not arrive in time (`requestTimeout`, `headersTimeout`) is closed without an
 * answer, as nginx does: nothing was asked.
 *
 * Two more things node answers by itself, without the envelope: an `Expect` other than
 * `100-continue` (a bare 417; RFC 9110 lets a server ignore it, so the request is served as any
 * other), and `CONNECT` (the socket closed without a word; it gets the 405 every other method gets).
 */
export function answerClientErrors(server: Server, methods: MethodsAnswer = PUBLIC_METHODS): Server {
  const answering = new WeakSet<Duplex>();
  const answer = (socket: SocketWithMessage, err: ApiError) => {
    answering.add(socket);
    afterInFlight(socket, () => endWith(socket, err));
  };
  server.on('clientError', (err: NodeJS.ErrnoException, socket: SocketWithMessage) => {
    if (!canAnswer(err, socket)) {
      socket.destroy();
      return;
    }
    // The parser stays failed: each later chunk on the connection reports the error again.
    if (!answering.has(socket)) answer(socket, parserError(err));
  });
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.on('connect', (_req: IncomingMessage, socket: SocketWithMessage) => {
    if (!answering.has(socket))
      answer(
        socket,
        new ApiError('method_not_allowed', { message: methods.message, headers: { Allow: methods.allow } }),
      );
  });
  return server;
}

/** What a server answers a method it does not serve with: its Allow, and the message saying so. */
export interface MethodsAnswer {
  allow: string;
  message?: string;
}

const PUBLIC_METHODS: MethodsAnswer = { allow: 'GET' };

interface InFlight {
  once(event: 'close', listener: () => void): unknown;
  /** The request it answers (node's own field): `complete` once its whole body was read. */
  req?: { complete: boolean };
  headersSent: boolean;
}

interface SocketWithMessage extends Duplex {
  /** The response in flight on this connection, if any (node's own field; the next pipelined one
   * is given the connection when it finishes, before its `close`). */
  _httpMessage?: InFlight | null;
}

function canAnswer(err: NodeJS.ErrnoException, socket: Duplex): boolean {
  return err.code !== 'ECONNRESET' && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable;
}

function afterInFlight(socket: SocketWithMessage, then: () => void): void {
  const res = socket._httpMessage;
  if (!res) then();
  else if (res.req?.complete !== false) res.once('close', () => afterInFlight(socket, then));
  // Its own body never ends, so it is not waited for; and no answer can follow one already begun.
  else if (res.headersSent) socket.destroy();
  else then();
}

function endWith(socket: Duplex, err: ApiError): void {
  if (!socket.writable) socket.destroy();
  else socket.end(rawErrorResponse(err), () => socket.destroy());
}

const TOO_LONG = 'URL hoặc tiêu đề HTTP quá dài.';
const MALFORMED = 'Yêu cầu HTTP không đúng định dạng.';
const UNENCODED =
  'URL chứa dấu cách hoặc ký tự ngoài ASCII chưa mã hoá phần trăm (percent-encoding), ví dụ ' +
  'q=lu%E1%BA%ADt%20%C4%91%E1%BA%A5t cho q=luật đất.';

/** What node's parser says of a request it rejects: the chunk it was reading, and where it stopped. */
interface ParserError extends NodeJS.ErrnoException {
  rawPacket?: unknown;
  bytesParsed?: number;
}

function parserError(err: ParserError): ApiError {
  const tooLong = err.code === 'HPE_HEADER_OVERFLOW' || err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW';
  if (tooLong) return new ApiError('invalid_request', { message: TOO_LONG });
  return new ApiError('invalid_request', { message: unencodedTarget(err) ? UNENCODED : MALFORMED });
}

/**
 * Whether the parser stopped in a request line whose target holds a space or a byte past ASCII: a
 * URL typed as read (curl ".../legal-documents?q=luật đất"), the commonest way to meet this 422.
 */
function unencodedTarget(err: ParserError): boolean {
  const raw = err.rawPacket;
  if (!Buffer.isBuffer(raw)) return false;
  const at = Math.min(Math.max(err.bytesParsed ?? 0, 0), raw.length);
  const start = at > 0 ? raw.lastIndexOf(0x0a, at - 1) + 1 : 0;
  const end = raw.indexOf(0x0a, at);
  const line = raw
    .subarray(start, end < 0 ? raw.length : end)
    .toString('latin1')
    .replace(/\r$/, '');
  if (!/^[A-Z]+ \S/.test(line)) return false;
  return /[\x80-\xff]/.test(line) || line.split(' ').length > 3;
}

/** The whole HTTP response, head and envelope, written on a connection the app never saw. */
function rawErrorResponse(err: ApiError): string {
  const body = JSON.stringify(errorBody(err));
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ''}`,
    `Content-Type: ${JSON_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(err.extras.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    `X-Request-Id: ${randomUUID()}`,
    'X-Content-Type-Options: nosniff',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
