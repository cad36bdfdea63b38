import { createServer } from 'node:http';
import { hostname as osHostname, networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { listen } from './listen';
import { prepareBuiltin } from './prepare-builtin';
import type { WantedPort } from './listen';
import type { Server } from 'node:http';
import type { RuntimeConfig } from '../config/compile-config';
import type { Db } from '../db/db';
import { builtinUpstream } from '../upstreams/builtin-upstreams';
import type { BuiltinUpstream } from '../upstreams/builtin-upstreams';
import type { Logger } from '../util/logger';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Would a connection to this host stay on this machine: loopback, any address, its own names and addresses. */
function onThisMachine(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === osHostname()) return true;
  if (!ipaddr.isValid(host)) return false;
  const addr = ipaddr.process(host);
  if (addr.range() === 'loopback' || addr.range() === 'unspecified') return true;
  return Object.values(networkInterfaces()).some((list) =>
    (list ?? []).some(
      (i) => ipaddr.isValid(i.address) && ipaddr.process(i.address).toString() === addr.toString(),
    ),
  );
}

export interface LocalUpstreams {
  names: string[];
  /**
   * What a reload to `next` would break: a built-in upstream this process runs pointed at another
   * address on this machine, where nothing of it listens (it listens where it started, until the
   * next start). Pointing one at a service elsewhere is a move, and fine.
   */
  movedBy(next: RuntimeConfig): string[];
  close(): Promise<void>;
}

/** The built-in upstreams this process runs: those whose URL points at this machine (DESIGN §1). */
function localBuiltins(
  config: RuntimeConfig,
): { name: string; builtin: BuiltinUpstream; url: URL; timeoutMs: number }[] {
  return [...config.upstreams].flatMap(([name, up]) => {
    const builtin = builtinUpstream(name);
    const url = new URL(up.url);
    return builtin && LOCAL_HOSTS.has(url.hostname) ? [{ name, builtin, url, timeoutMs: up.timeout_ms }] : [];
  });
}

/** The address each built-in upstream this process would run listens on (see startLocalUpstreams). */
export function localUpstreamPorts(config: RuntimeConfig): WantedPort[] {
  return localBuiltins(config).map(({ name, url }) => ({
    port: listenPort(url),
    what: `upstreams.${name}.url`,
    host: listenHost(url),
  }));
}

const listenPort = (url: URL): number => Number(url.port || 80);
const listenHost = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Starts each built-in upstream whose URL points at this machine, on that URL's port (DESIGN §1);
 * any other upstream is external and only proxied to.
 */
export async function startLocalUpstreams(
  config: RuntimeConfig,
  db: Db,
  logger: Logger,
  seedSampleData = true,
): Promise<LocalUpstreams> {
  const servers: Server[] = [];
  const names: string[] = [];
  const listening = new Map<string, URL>();
  for (const { name, builtin, url, timeoutMs } of localBuiltins(config)) {
    await prepareBuiltin(db, builtin, logger, seedSampleData);
    // Its queries share the gateway's pool: one the gateway has stopped waiting for (timeout_ms)
    // must not hold a connection the gateway's own queries need.
    const served = db.withQueryTimeout(timeoutMs);
    const server = createServer(builtin.createApp({ db: served, logger: logger.child({ upstream: name }) }));
    server.keepAliveTimeout = 65_000;
    await listen(server, listenPort(url), `upstreams.${name}.url`, listenHost(url));
    servers.push(server);
    names.push(name);
    listening.set(name, url);
  }
  return {
    names,
    movedBy: (next) =>
      [...listening].flatMap(([name, at]) => {
        const url = next.upstreams.get(name)?.url;
        const to = url === undefined ? undefined : new URL(url);
        if (!to || !onThisMachine(to.hostname) || to.origin === at.origin) return [];
        return [
          `upstreams.yaml upstreams.${name}.url: the built-in ${name} upstream of this process listens on ${at.origin} until the next start; a reload cannot move it to ${to.origin}`,
        ];
      }),
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.close(() => r());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
