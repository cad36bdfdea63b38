import type { Queryable } from '../db/db';
import type { ReadinessCheck } from '../observability/ops-routes';

export interface ReadinessSources {
  /** False from SIGTERM on. */
  accepting(): boolean;
  /** The last reload of CONFIG_DIR was taken (or none was refused yet). */
  configCurrent(): boolean;
  database: Queryable;
  /** Pings the shared counters; calls reached() on the first answer. */
  counters(): Promise<boolean>;
  /** Whether the shared counters have answered once since start. */
  countersReached(): boolean;
  /** store_failure: closed (read at start, as the meter store was made with it). */
  failClosed: boolean;
  /** The upstream poller's last answers. */
  upstreamsUp(): boolean;
}

/** What /readyz reports, and which of it takes the replica out of the Service. */
export function readinessChecks(src: ReadinessSources): ReadinessCheck[] {
  return [
    // False from SIGTERM on: the public port drains while the admin port still answers probes
    // and scrapes, so the drain's last requests are counted and the pod says why it is unready.
    { name: 'accepting', check: () => Promise.resolve(src.accepting()) },
    // Whether the files on disk are the ones serving; never gates: a bad edit refused by every
    // replica must not take them all out of the Service while the previous config serves.
    { name: 'config', check: () => Promise.resolve(src.configCurrent()), gates: () => false },
    {
      name: 'database',
      check: async () => (await src.database.query('SELECT 1 AS ok')).rows.length === 1,
      // Reported, never gating: it answered before the ports opened (migrations, signing keys), and every
      // replica shares it, so a failover would take them all out at once and callers would get the
      // ingress's bare 503 instead of ours (search_unavailable, Retry-After) for what needs it; a
      // pool full of credit calls would do the same under load.
      gates: () => false,
    },
    {
      name: 'counters',
      check: () => src.counters(),
      // Not before the shared counters first answer (a replica taking traffic then would meter
      // alone); after that, under store_failure open the API goes on with local limits.
      gates: () => !src.countersReached() || src.failClosed,
    },
    {
      name: 'upstreams',
      // The poller's last answers: a probe that waited for a black-holed upstream's /healthz
      // would time out on every replica at once.
      check: () => Promise.resolve(src.upstreamsUp()),
      gates: () => false,
    },
  ];
}
