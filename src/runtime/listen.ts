import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

/** A port the product must listen on is taken (or not ours to take): the operator's to resolve. */
export class PortUnavailableError extends Error {
  override readonly name = 'PortUnavailableError';
}

/**
 * Listens on `port` (at `host`, when given) and resolves with the port taken; a port in use or
 * refused names `what` sets it, as a start failure without a stack.
 */
export function listen(server: Server, port: number, what: string, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL')
        reject(
          new PortUnavailableError(
            `${host ?? ''}${host ? ':' : 'port '}${port} (${what}) ${
              err.code === 'EADDRINUSE'
                ? 'is in use by another process'
                : `cannot be listened on (${err.code})`
            }`,
          ),
        );
      else reject(err);
    };
    server.once('error', refused);
    // Listening, the server's later errors are its owner's: this listener would swallow the next.
    const done = () => {
      server.off('error', refused);
      resolve((server.address() as AddressInfo).port);
    };
    if (host === undefined) server.listen(port, done);
    else server.listen(port, host, done);
  });
}

/** A port a start will listen on: what sets it, and the address when not every interface. */
export interface WantedPort {
  port: number;
  what: string;
  host?: string;
}

/**
 * Listens on each port and lets it go again, so a start that could not serve stops before it
 * touches its data: a product still running on the same data directory holds these ports, and
 * migrating its database under it would corrupt what it has open. Port 0 (any) is not checked.
 */
export async function checkPortsFree(wanted: readonly WantedPort[]): Promise<void> {
  for (const w of wanted) {
    if (w.port === 0) continue;
    // A client that connects in the probe's moment is dropped: close() waits for every connection.
    const probe = createServer((socket) => socket.destroy());
    await listen(probe, w.port, w.what, w.host);
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}
