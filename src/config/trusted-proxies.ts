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

/**
 * Parses "a.b.c.d/n", "v6/n" or a bare address (a /32 or /128). Throws with a readable reason.
 * Strict about what an operator or the admin API writes, since the entry is stored and shown as
 * written: IPv4 only in dotted decimal (ipaddr.js would read "010.0.0.1" as octal 8.0.0.1, "10.1"
 * as 10.0.0.1), no zone index, and an IPv4-mapped range no wider than ::ffff:0:0/96 (a wider one
 * would become an IPv4 prefix below zero, which matches every address).
 */
export function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const s = text.trim();
  const slash = s.indexOf('/');
  const address = slash === -1 ? s : s.slice(0, slash);
  if (address.includes('%')) throw new Error(`"${text}" has a zone index`);
  // The whole address, or the IPv4 tail of an IPv6 one (::ffff:a.b.c.d).
  const v4 = address.includes(':') ? /:([^:]*\.[^:]*)$/.exec(address)?.[1] : address;
  if (v4 !== undefined && !ipaddr.IPv4.isValidFourPartDecimal(v4))
    throw new Error(`"${text}" is not an IPv4 address in dotted decimal (a.b.c.d, no leading zeros)`);
  if (slash !== -1) {
    if (!ipaddr.isValidCIDR(s)) throw new Error(`"${text}" is not a valid CIDR`);
    const [addr, bits] = ipaddr.parseCIDR(s);
    if (addr.kind() === 'ipv4' || !(addr as ipaddr.IPv6).isIPv4MappedAddress()) return [addr, bits];
    if (bits < 96) throw new Error(`"${text}" is an IPv4-mapped range wider than /96`);
    return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  const addr = parseIp(s);
  if (!addr) throw new Error(`"${text}" is not an IP address or CIDR`);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

/** Whether `text` is an entry parseCidr takes. */
export function isCidr(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

/** A named range's CIDRs; a word that names none is refused as such, not as a malformed address. */
function namedRange(entry: string): string[] | undefined {
  if (Object.hasOwn(NAMED_RANGES, entry)) return NAMED_RANGES[entry];
  if (/^[a-z_]+$/i.test(entry))
    throw new Error(`"${entry}" is neither an address or CIDR nor one of ${Object.keys(NAMED_RANGES).join(', ')}`);
  return undefined;
}

/** Compiles CIDR/address/named-range entries into one matcher; done at load, never per request. */
export function compileIpMatcher(entries: readonly string[]): IpMatcher {
  const ranges = entries.flatMap((e) => namedRange(e) ?? [e]).map(parseCidr);
  const v4 = ranges.filter(([a]) => a.kind() === 'ipv4');
  const v6 = ranges.filter(([a]) => a.kind() === 'ipv6');
  return (ip: string) => {
    const addr = parseIp(ip);
    if (!addr) return false;
    const list = addr.kind() === 'ipv4' ? v4 : v6;
    return list.some((range) => addr.match(range));
  };
}
