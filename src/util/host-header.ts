import type { IncomingMessage } from 'node:http';

/** What both ports answer, in the envelope, an HTTP/1.1 request without Host. */
export const NO_HOST_MESSAGE = 'Yêu cầu HTTP/1.1 thiếu tiêu đề Host.';

/**
 * HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 predates it. Node's servers are told not to
 * refuse the request themselves, because their refusal is a bare 400 without the envelope.
 */
export function lacksHost(req: IncomingMessage): boolean {
  return req.headers.host === undefined && req.httpVersion !== '1.0';
}
