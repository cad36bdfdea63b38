import type { IncomingMessage } from 'node:http';
import type { IpMatcher } from '../../config/trusted-proxies';
import { parseIp } from '../../config/trusted-proxies';

/**
 * The caller's address: the socket peer, unless the peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function resolveClientIp(req: IncomingMessage, trusted: IpMatcher): string {
  const peer = normalise(req.socket.remoteAddress ?? '');
  if (!trusted(peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  const raw = Array.isArray(header) ? header.join(',') : (header ?? '');
  const hops = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalise(hops[i]!);
    if (!parseIp(hop)) break;
    client = hop;
    if (!trusted(hop)) break;
  }
  return client;
}

function normalise(ip: string): string {
  const addr = parseIp(ip);
  return addr ? addr.toString() : ip;
}
