import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
