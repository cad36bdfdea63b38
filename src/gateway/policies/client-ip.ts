import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { IpMatcher } from '../../config/trusted-proxies';
import { parseIp } from '../../config/trusted-proxies';

/** The caller's address from the request's socket and its X-Forwarded-For value. */
export type ClientIpResolver = (req: IncomingMessage, forwardedFor: string | undefined) => string;

interface Peer {
  ip: string;
  trusted: boolean;
}

/**
 * The caller's address: the socket peer, unless the peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy. The peer is parsed once per
 * connection (keep-alive clients send many requests on one socket), not once per request.
 */
export function createClientIpResolver(trusted: IpMatcher): ClientIpResolver {
  const peers = new WeakMap<Socket, Peer>();
  const peerOf = (socket: Socket): Peer => {
    let peer = peers.get(socket);
    if (!peer) {
      const ip = normalise(socket.remoteAddress ?? '');
      peer = { ip, trusted: trusted(ip) };
      // A socket without an address yet (destroyed early) is not cached: nothing to reuse.
      if (socket.remoteAddress) peers.set(socket, peer);
    }
    return peer;
  };
  return (req, forwardedFor) => {
    const peer = peerOf(req.socket);
    if (!peer.trusted || forwardedFor === undefined) return peer.ip;
    const hops = forwardedFor
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    let client = peer.ip;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalise(hops[i]!);
      if (!parseIp(hop)) break;
      client = hop;
      if (!trusted(hop)) break;
    }
    return client;
  };
}

function normalise(ip: string): string {
  const addr = parseIp(ip);
  return addr ? addr.toString() : ip;
}
