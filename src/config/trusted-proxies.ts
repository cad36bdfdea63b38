import ipaddr from 'ipaddr.js';

export type IpMatcher = (ip: string) => boolean;

const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10'],
  uniquelocal: ['fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** Parses an address, unwrapping IPv4-mapped IPv6 (::ffff:1.2.3.4) so v4 rules apply to it. */
export function parseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(ip)) return undefined;
  const addr = ipaddr.parse(ip);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
}

/** Parses "a.b.c.d/n", "v6/n" or a bare address (a /32 or /128). Throws with a readable reason. */
export function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const s = text.trim();
  if (s.includes('/')) {
    if (!ipaddr.isValidCIDR(s)) throw new Error(`"${text}" is not a valid CIDR`);
    const [addr, bits] = ipaddr.parseCIDR(s);
    const plain = addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
    return [plain, plain.kind() === addr.kind() ? bits : bits - 96];
  }
  const addr = parseIp(s);
  if (!addr) throw new Error(`"${text}" is not an IP address or CIDR`);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

/** Compiles CIDR/address/named-range entries into one matcher; done at load, never per request. */
export function compileIpMatcher(entries: readonly string[]): IpMatcher {
  const ranges = entries.flatMap((e) => NAMED_RANGES[e] ?? [e]).map(parseCidr);
  const v4 = ranges.filter(([a]) => a.kind() === 'ipv4');
  const v6 = ranges.filter(([a]) => a.kind() === 'ipv6');
  return (ip: string) => {
    const addr = parseIp(ip);
    if (!addr) return false;
    const list = addr.kind() === 'ipv4' ? v4 : v6;
    return list.some((range) => addr.match(range));
  };
}
