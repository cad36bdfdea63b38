// The limit for Node: a bare node:http server that forwards GET to the upstream over a keep-alive
// pool, parses the JSON answer and rewrites it into the gateway's envelope {success, data, meta}.
// No auth, no metering, no logging, no headers beyond Content-Type/Length. The upstream client is
// the gateway's own (undici's Pool) and the body is encoded as the gateway encodes it (once, into a
// slab: src/util/utf8-slab.ts), so (d)/(c) measures the policy work alone; `http` uses node's
// http.request and Agent instead (a typical hand-rolled proxy, reported beside it). Own process:
//   node --import tsx bench/bare-proxy.ts <upstream-url> <port> [undici|http]   (prints {"port":N})
import { Agent, createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { createUtf8Encoder } from '../src/util/utf8-slab';
import type { Utf8Encoder } from '../src/util/utf8-slab';

export type BareClient = 'undici' | 'http';

interface UpstreamList {
  data: unknown[];
  total: number;
}

const POOL = 64;

/** Sends the upstream's answer (status, body) or null when it failed. */
type Fetch = (path: string, done: (status: number, body: Buffer | null) => void) => void;

function undiciFetch(target: URL): Fetch {
  const pool = new Pool(target.origin, { connections: POOL });
  return (path, done) => {
    const chunks: Buffer[] = [];
    let status = 502;
    pool.dispatch(
      { method: 'GET', path, headers: ['accept', 'application/json'] },
      {
        onRequestStart() {},
        onResponseStart(_c, code) {
          status = code;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd: () => done(status, Buffer.concat(chunks)),
        onResponseError: () => done(502, null),
      },
    );
  };
}

function httpFetch(target: URL): Fetch {
  const agent = new Agent({ keepAlive: true, maxSockets: POOL, maxFreeSockets: POOL });
  return (path, done) => {
    const up = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: 'GET',
        agent,
        headers: { accept: 'application/json' },
      },
      (upRes) => {
        const chunks: Buffer[] = [];
        upRes.on('data', (c: Buffer) => chunks.push(c));
        upRes.on('error', () => done(502, null));
        upRes.on('end', () => done(upRes.statusCode ?? 502, Buffer.concat(chunks)));
      },
    );
    up.on('error', () => done(502, null));
    up.end();
  };
}

function reply(res: ServerResponse, status: number, body: Buffer | null, utf8: Utf8Encoder): void {
  let parsed: UpstreamList | undefined;
  try {
    if (body) parsed = JSON.parse(body.toString('utf8')) as UpstreamList;
  } catch {
    parsed = undefined;
  }
  if (!parsed) {
    if (res.headersSent) return void res.destroy();
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' });
    return void res.end('{"success":false}');
  }
  // Encoded once, as the gateway does (utf8-slab.ts), not measured with Buffer.byteLength first and
  // encoded again by the socket: the shared work done the gateway's way, so d/c is the policy's.
  const payload = utf8.encode(
    JSON.stringify({
      success: true,
      data: parsed.data,
      meta: { page: 1, per_page: 20, total: parsed.total, has_more: parsed.total > 20 },
    }),
  );
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': payload.length,
  });
  res.end(payload);
}

export function startBareProxy(
  upstreamUrl: string,
  port: number,
  client: BareClient = 'undici',
  host = '127.0.0.1',
): Promise<Server> {
  const target = new URL(upstreamUrl);
  const fetchUp = client === 'http' ? httpFetch(target) : undiciFetch(target);
  const utf8 = createUtf8Encoder();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    fetchUp(req.url ?? '/', (status, body) => reply(res, status, body, utf8));
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (require.main === module) {
  const upstream = process.argv[2];
  if (!upstream) throw new Error('usage: bare-proxy.ts <upstream-url> [port] [undici|http]');
  const client: BareClient = process.argv[4] === 'http' ? 'http' : 'undici';
  void startBareProxy(upstream, Number(process.argv[3] ?? 0), client).then((server) => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
    process.on('SIGTERM', () => process.exit(0));
  });
}
