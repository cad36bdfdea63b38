import type { ApiKeyRecord } from '../../accounts/account-types';
import { compileIpMatcher, isCidr } from '../../config/trusted-proxies';
import type { IpMatcher } from '../../config/trusted-proxies';
import { ApiError } from '../../errors/api-error';
import type { PolicyFactory } from '../policy';

/** Per-key CIDR allowlist (v4/v6); matchers are compiled once per cached key record. */
export const ipAllowlistPolicy: PolicyFactory = (_config, deps) => {
  const compiled = new WeakMap<ApiKeyRecord, IpMatcher>();
  // Once per key record the cache reads (not per request): which entries an operator must rewrite.
  const usable = (key: ApiKeyRecord): string[] => {
    const ok = key.ip_allowlist.filter(isCidr);
    if (ok.length < key.ip_allowlist.length)
      deps.logger.warn(
        { key_id: key.id, ignored: key.ip_allowlist.filter((e) => !isCidr(e)) },
        'IP allowlist entries in a form no longer accepted match nothing; rewrite them',
      );
    return ok;
  };
  return {
    name: 'ip-allowlist',
    handle(ctx) {
      const key = ctx.principal?.key;
      if (!key || key.ip_allowlist.length === 0) return;
      let match = compiled.get(key);
      // An entry stored before the admin API refused its form matches nothing: the key stays
      // restricted to what remains (nothing, if nothing remains), never opened up.
      if (!match) compiled.set(key, (match = compileIpMatcher(usable(key))));
      // The address as the gateway saw it: behind NAT or a proxy, the one to allow.
      if (!match(ctx.clientIp))
        throw new ApiError('ip_not_allowed', {
          message: `Địa chỉ IP gọi API (${ctx.clientIp}) không nằm trong danh sách được phép của key.`,
        });
    },
  };
};
