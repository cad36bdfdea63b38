import type { Server } from 'node:http';
import type { Logger } from '../util/logger';
import { drainServers } from '../util/drain-servers';

/** The admin port's drain after the public port's, at least: a probe or a scrape under way finishes. */
const ADMIN_DRAIN_MS = 1000;

export interface ShutdownParts {
  publicServer: Server;
  adminServer: Server;
  logger: Logger;
  /** Read at shutdown: a reload may have changed them. */
  timeouts(): { shutdownMs: number; databaseMs: number };
  /** Marks the replica unready and stops watching CONFIG_DIR. */
  stopAccepting(): void;
  stopHealthPolling(): void;
  /** What the servers used, closed in this order once both ports are drained. */
  closers: ReadonlyArray<() => void | Promise<void>>;
}

/**
 * The order a stop takes: the public port drains (probes still answered, so the pod says why it
 * is unready), then the admin port, then what the requests used, last the database.
 */
export async function shutdownSequence(parts: ShutdownParts): Promise<void> {
  const { logger } = parts;
  parts.stopAccepting();
  const { shutdownMs, databaseMs } = parts.timeouts();
  const drained = await drainServers([parts.publicServer], shutdownMs);
  if (drained.cutAtDeadline > 0)
    logger.warn(
      { connections: drained.cutAtDeadline, shutdown_timeout_ms: shutdownMs },
      'shutdown deadline reached: open connections closed before their requests finished',
    );
  // Upstreams stay polled while probes are answered; an admin call under way may wait on the
  // database for up to database_timeout_ms.
  parts.stopHealthPolling();
  const adminMs = Math.max(ADMIN_DRAIN_MS, databaseMs);
  // Its idle sockets close at once: the public port's grace for clients sending back to back
  // (the next request already on its way) would only add half a second to every stop here.
  const admin = await drainServers([parts.adminServer], adminMs, 0);
  if (admin.cutAtDeadline > 0)
    logger.warn(
      { connections: admin.cutAtDeadline, admin_drain_ms: adminMs },
      'shutdown deadline reached on the admin port: open connections closed',
    );
  for (const close of parts.closers) await close();
}
