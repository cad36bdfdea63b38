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
      const hop = hopAddress(hops[i]!);
      if (hop === undefined) break;
      client = hop;
      if (!trusted(hop)) break;
    }
    return client;
  };
}

// Some proxies append the client's port (Azure's Application Gateway, IIS's ARR): 203.0.113.5:4711,
// [2001:db8::5]:4711. Read as the address, not as unreadable, which would make the proxy the client.
const WITH_PORT = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}|\[([0-9A-Fa-f:.]+)\](?::\d{1,5})?)$/;

/** One X-Forwarded-For entry as an address, or undefined when it is not one. */
function hopAddress(hop: string): string | undefined {
  const plain = parseIp(hop);
  if (plain) return plain.toString();
  const m = WITH_PORT.exec(hop);
  return m ? parseIp(m[1] ?? m[2]!)?.toString() : undefined;
}

function normalise(ip: string): string {
  const addr = parseIp(ip);
  return addr ? addr.toString() : ip;
}
