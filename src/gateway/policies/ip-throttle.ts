import type { IncomingMessage } from 'node:http';
import type ipaddr from 'ipaddr.js';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RuntimeConfig } from '../../config/compile-config';
import { parseIp } from '../../config/trusted-proxies';
import { ApiError } from '../../errors/api-error';
import type { GatewayDeps } from '../deps';
import type { PolicyFactory } from '../policy';
import { createClientIpResolver } from './client-ip';

/**
 * Each client address's requests in its current minute. Made once per process and passed in, not
 * per config: a reload must not hand every address a fresh minute. It never refuses by itself
 * (the config's limit, which a reload may change, is compared with its count by the policy).
 */
export type IpWindow = RateLimiterMemory;

export function createIpWindow(): IpWindow {
  return new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: 60 });
}

// IPv6 ranges of one network's own hosts: a /64 there is a whole cluster's or site's pods.
const PER_ADDRESS_V6 = new Set(['uniqueLocal', 'linkLocal', 'loopback', 'unspecified', 'multicast']);

/**
 * The window an address counts in: a global IPv6 address by its /64, the block one subscriber or
 * host gets (SLAAC, privacy addresses), since each of its 2^64 addresses would otherwise be a fresh
 * count; an IPv6 address built on an IPv4 one by that IPv4 address: NAT64 (64:ff9b::/96), a 6to4
 * site (2002::/16, whose /48 is its IPv4 address: 2^80 addresses) and a Teredo client (2001::/32,
 * its IPv4 address inverted in the last 32 bits); any other address by itself (IPv4; and IPv6 in
 * private, link-local and the like, where a /64 is many clients).
 */
export function volumeKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const addr = parseIp(ip);
  if (!addr || addr.kind() !== 'ipv6') return addr ? addr.toString() : ip;
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  const p = v6.parts;
  if (range === 'rfc6052') return ipaddrFromV4Parts(p[6]!, p[7]!);
  if (range === '6to4') return ipaddrFromV4Parts(p[1]!, p[2]!);
  if (range === 'teredo') return ipaddrFromV4Parts(p[6]! ^ 0xffff, p[7]! ^ 0xffff);
  if (PER_ADDRESS_V6.has(range)) return ip;
  return `${p
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

const ipaddrFromV4Parts = (hi: number, lo: number): string =>
  [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');

/** The client's address for a request, and the 429 its volume this minute calls for, if any. */
export type IpVolumeCheck = (
  req: IncomingMessage,
  forwardedFor: string | undefined,
) => Promise<{ clientIp: string; windowKey: string; refusal?: ApiError }>;

/** Built per config (trusted proxies, limit); counts in the process's one window. */
export function createIpVolumeCheck(
  config: RuntimeConfig,
  deps: Pick<GatewayDeps, 'ipWindow' | 'metrics'>,
): IpVolumeCheck {
  const limit = config.raw.plans.per_ip_per_minute;
  const clientIpOf = createClientIpResolver(config.trustedProxy);
  return async (req, forwardedFor) => {
    const clientIp = clientIpOf(req, forwardedFor);
    const windowKey = volumeKey(clientIp);
    const seen = await deps.ipWindow.consume(windowKey, 1);
    if (seen.consumedPoints <= limit) return { clientIp, windowKey };
    deps.metrics.quotaRejections.inc({ reason: 'too_many_requests' });
    const retryAfter = Math.max(1, Math.ceil(seen.msBeforeNext / 1000));
    return { clientIp, windowKey, refusal: new ApiError('too_many_requests', { retryAfter }) };
  };
}

/**
 * Per-IP volume before authentication, so key guessing is throttled too. Counted per replica in
 * memory: a second Redis round trip per call would cost more than a per-replica bound is worth.
 */
export const ipThrottlePolicy: PolicyFactory = (config, deps) => {
  const check = createIpVolumeCheck(config, deps);
  return {
    name: 'ip-throttle',
    async handle(ctx) {
      const { clientIp, refusal } = await check(ctx.req, ctx.headers.forwardedFor);
      ctx.clientIp = clientIp;
      if (refusal) throw refusal;
    },
  };
};
