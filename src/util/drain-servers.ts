import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';

/** How long a socket may stay idle once draining has begun, instead of the usual 65 s. */
const DRAIN_KEEP_ALIVE_MS = 1000;
/** Time for a client sending back to back to get one `Connection: close` answer and move on. */
const IDLE_CLOSE_AFTER_MS = 500;

/**
 * Stops the servers taking connections at once, lets the requests in flight finish for at most
 * `timeoutMs`, then cuts what is left, and says how many connections it cut.
 *
 * Not `server.close()` alone: it also closes every socket idle at that instant, and a keep-alive
 * client sending back to back (a gateway's pool to an upstream, an ingress proxy) has its next
 * request already on the way on many of them: reset. Without it, those clients would keep their
 * sockets busy until the orchestrator's SIGKILL. So every request from now on is answered with
 * `Connection: close` (the client sends its next one elsewhere), a socket whose response ends now
 * closes after a short idle time, and the sockets still idle half a second later are closed then.
 */
export async function drainServers(
  servers: readonly Server[],
  timeoutMs: number,
  idleCloseAfterMs = IDLE_CLOSE_AFTER_MS,
): Promise<DrainResult> {
  const result: DrainResult = { cutAtDeadline: 0 };
  const closing = (_req: IncomingMessage, res: ServerResponse): void => {
    res.shouldKeepAlive = false;
  };
  const closed = Promise.all(
    servers.map((s) => {
      s.prependListener('request', closing);
      // Read by node when a response ends, to arm that socket's idle timeout.
      s.keepAliveTimeout = Math.min(s.keepAliveTimeout, DRAIN_KEEP_ALIVE_MS);
      // net.Server's close: stop listening; the callback comes once the last socket has closed.
      return new Promise<void>((resolve) => NetServer.prototype.close.call(s, () => resolve()));
    }),
  );
  const idle = setTimeout(
    () => {
      for (const s of servers) s.closeIdleConnections();
    },
    Math.min(idleCloseAfterMs, timeoutMs),
  );
  const deadline = setTimeout(() => {
    for (const s of servers) {
      // Counted before they are cut: what the orchestrator's grace period did not leave time for.
      s.getConnections((err, open) => {
        if (!err) result.cutAtDeadline += open;
        s.closeAllConnections();
      });
    }
  }, timeoutMs);
  try {
    await closed;
  } finally {
    clearTimeout(idle);
    clearTimeout(deadline);
  }
  return result;
}

export interface DrainResult {
  /** Connections still open at the deadline, closed with whatever they were doing. */
  cutAtDeadline: number;
}
