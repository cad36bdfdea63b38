// The bench's upstream: a bare node:http server answering every path with one fixed ~2 KB
// legal-documents list ({data:[...], total}), keep-alive, no framework. Run as its own process:
//   node --import tsx bench/upstream-stub.ts <host> <port>   (port 0: any; prints {"port":N})
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { legalRow } from '../test/support/stub-upstream';

/**
 * How long the stub keeps an idle connection, and so (less 2 s) how long each proxy's pool keeps one:
 * longer than a whole run. At 65 s, the connections the bare proxy and the gateway opened to the
 * stub in a burst (when a window started or stalled) were closed together 63 s after their last use,
 * on the load CPU, inside another target's window (step 30). undici keeps an idle connection at
 * most 600 s whatever the server says.
 */
export const STUB_KEEP_ALIVE_S = 600;

/** A first page of a keyword search: 12 rows, ≈2 KB of JSON. */
export const STUB_BODY: Buffer = Buffer.from(
  JSON.stringify({ data: Array.from({ length: 12 }, (_, i) => legalRow(i + 1)), total: 1000 }),
);

export function startUpstreamStub(host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': STUB_BODY.length,
    });
    res.end(STUB_BODY);
  });
  server.keepAliveTimeout = STUB_KEEP_ALIVE_S * 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (require.main === module) {
  const host = process.argv[2] ?? '127.0.0.2';
  const port = Number(process.argv[3] ?? 0);
  void startUpstreamStub(host, port).then((server) => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
    process.on('SIGTERM', () => process.exit(0));
  });
}
