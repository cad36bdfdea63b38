import type { IncomingMessage } from 'node:http';

const ABSOLUTE = /^https?:\/\/[^/?#]*/i;

/**
 * Rewrites an absolute-form request target (`GET http://api.example/v1/me HTTP/1.1`), which a server
 * must accept (RFC 9112 §3.2.2) and some proxies and HTTP clients send, to the origin form the
 * routes read (`/v1/me`). Any other target is left as it is: a path, `*`, or what the routes refuse.
 */
export function toOriginForm(req: IncomingMessage): void {
  const url = req.url;
  // One character compare for the usual target: nothing else on the hot path.
  if (url === undefined || url.charCodeAt(0) === 47 /* '/' */) return;
  const authority = ABSOLUTE.exec(url);
  if (!authority) return;
  const rest = url.slice(authority[0].length);
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}
