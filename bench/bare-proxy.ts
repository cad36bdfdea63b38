// The limit for Node: a bare node:http proxy that forwards GET to the upstream over a keep-alive
// pool, parses the JSON answer and rewrites it into the gateway's envelope {success, data, meta}.
// No auth, no metering, no logging, no headers beyond Content-Type/Length. Run as its own process:
//   node --import tsx bench/bare-proxy.ts <upstream-url> <port>   (prints {"port":N})
import { Agent, createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface UpstreamList {
  data: unknown[];
  total: number;
}

export function startBareProxy(upstreamUrl: string, port: number, host = '127.0.0.1'): Promise<Server> {
  const target = new URL(upstreamUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64 });
  const server = createServer((req, res) => {
    const fail = (): void => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"success":false}');
    };
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: 'GET',
        agent,
        headers: { accept: 'application/json' },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('error', fail);
        upRes.on('end', () => {
          let parsed: UpstreamList;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as UpstreamList;
          } catch {
            return fail();
          }
          const payload = JSON.stringify({
            success: true,
            data: parsed.data,
            meta: { page: 1, per_page: 20, total: parsed.total, has_more: parsed.total > 20 },
          });
          res.writeHead(upRes.statusCode ?? 502, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(payload),
          });
          res.end(payload);
        });
      },
    );
    up.on('error', fail);
    up.end();
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (require.main === module) {
  const upstream = process.argv[2];
  if (!upstream) throw new Error('usage: bare-proxy.ts <upstream-url> [port]');
  void startBareProxy(upstream, Number(process.argv[3] ?? 0)).then((server) => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
    process.on('SIGTERM', () => process.exit(0));
  });
}
