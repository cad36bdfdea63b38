import { createServer } from 'node:http';
import type { RequestListener } from 'node:http';
import { hostname as osHostname, networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { listen } from './listen';
import { prepareBuiltin } from './prepare-builtin';
import type { WantedPort } from './listen';
import type { Server } from 'node:http';
import type { RuntimeConfig } from '../config/compile-config';
import { ConfigError } from '../config/load-config';
import { upstreamBasePath } from '../config/upstreams-schema';
import { unknownEndpoint } from '../upstream-kit/upstream-error';
import type { Db } from '../db/db';
import { retimableDb } from '../db/retimable-db';
import type { RetimableDb } from '../db/retimable-db';
import { builtinUpstream } from '../upstreams/builtin-upstreams';
import type { BuiltinUpstream } from '../upstreams/builtin-upstreams';
import type { Logger } from '../util/logger';

/**
 * The names a built-in upstream's URL gives for this process to run it. Any other address, one of
 * this machine's included (127.0.0.2, its LAN address), is a service someone else runs: a second
 * process on one machine proxies to the first one's built-ins that way, as the tests and the
 * benchmark's stub do.
 */
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const runsHere = (url: URL): boolean => LOCAL_HOSTS.has(url.hostname);

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
  /** Takes a reload's `timeout_ms` for the queries of each built-in upstream this process runs. */
  follow(next: RuntimeConfig): void;
  close(): Promise<void>;
}

/**
 * The built-in upstreams this process runs: those whose URL points at this machine's loopback
 * (DESIGN §1). This process serves them over plain HTTP, so an https URL here is a config error,
 * not a TLS handshake every call would fail.
 */
function localBuiltins(
  config: RuntimeConfig,
): { name: string; builtin: BuiltinUpstream; url: URL; timeoutMs: number }[] {
  return [...config.upstreams].flatMap(([name, up]) => {
    const builtin = builtinUpstream(name);
    const url = new URL(up.url);
    if (!builtin || !runsHere(url)) return [];
    if (url.protocol !== 'http:')
      throw new ConfigError(
        'upstreams.yaml',
        `upstreams.${name}.url`,
        `the built-in ${name} upstream this process starts on ${url.host} speaks plain HTTP: use http://, or point the URL at a service elsewhere`,
      );
    return [{ name, builtin, url, timeoutMs: up.timeout_ms }];
  });
}

/**
 * The built-in app under the URL's base path, the path the proxy and health checks put every
 * request under; a path outside it is an unknown endpoint, as the app itself answers one.
 */
function underBasePath(app: RequestListener, url: URL): RequestListener {
  const base = upstreamBasePath(url);
  if (base === '') return app;
  return (req, res) => {
    const target = req.url ?? '/';
    const rest = target.startsWith(base) ? target.slice(base.length) : undefined;
    // Under the base path: the base itself, then a path or a query (not "/legalx" under "/legal").
    if (rest !== undefined && (rest === '' || rest.startsWith('/') || rest.startsWith('?'))) {
      req.url = rest.startsWith('/') ? rest : `/${rest}`;
      app(req, res);
      return;
    }
    const { code, message } = unknownEndpoint();
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ code, message }));
  };
}

/** Where a built-in upstream answers: the origin it listens on and the base path it serves under. */
const servedAt = (url: URL): string => url.origin + upstreamBasePath(url);

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
  /** Each built-in this process runs, by name: where it answers, its server, its database. */
  const running = new Map<string, { url: URL; server: Server; served: RetimableDb }>();
  for (const { name, builtin, url, timeoutMs } of localBuiltins(config)) {
    await prepareBuiltin(db, builtin, logger, seedSampleData);
    // Its queries share the gateway's pool: one the gateway has stopped waiting for (timeout_ms)
    // must not hold a connection the gateway's own queries need; a reload changes it with the
    // gateway's own deadline.
    const served = retimableDb(db, timeoutMs);
    const app = builtin.createApp({
      db: served.db,
      setupDb: db,
      logger: logger.child({ upstream: name }),
    });
    const server = createServer(underBasePath(app, url));
    server.keepAliveTimeout = 65_000;
    await listen(server, listenPort(url), `upstreams.${name}.url`, listenHost(url));
    running.set(name, { url, server, served });
  }
  return {
    names: [...running.keys()],
    movedBy: (next) => [
      ...[...running].flatMap(([name, { url: at }]) => {
        const url = next.upstreams.get(name)?.url;
        const to = url === undefined ? undefined : new URL(url);
        if (!to || !onThisMachine(to.hostname) || servedAt(to) === servedAt(at)) return [];
        return [
          `upstreams.yaml upstreams.${name}.url: the built-in ${name} upstream of this process answers on ${servedAt(at)} until the next start; a reload cannot move it to ${servedAt(to)}`,
        ];
      }),
      // One this process did not start (its URL named another host then) is not started by a reload.
      ...[...next.upstreams].flatMap(([name, up]) => {
        const to = new URL(up.url);
        if (running.has(name) || !builtinUpstream(name) || !runsHere(to)) return [];
        return [
          `upstreams.yaml upstreams.${name}.url: the built-in ${name} upstream does not run in this process (it started pointed elsewhere); a reload cannot start it on ${servedAt(to)}, the next start will`,
        ];
      }),
    ],
    follow: (next) => {
      for (const [name, { served }] of running) {
        const up = next.upstreams.get(name);
        if (up) served.retime(up.timeout_ms);
      }
    },
    close: async () => {
      await Promise.all(
        [...running.values()].map(
          ({ server: s }) =>
            new Promise<void>((r) => {
              s.close(() => r());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
