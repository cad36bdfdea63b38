import { Agent, createServer, request } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainServers } from './drain-servers';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A server whose /slow?ms=N answers after N ms, and everything else at once. */
async function startServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
    const timer = setTimeout(() => res.end('done'), ms);
    res.on('close', () => clearTimeout(timer));
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port };
}

function get(port: number, path: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('draining servers on shutdown', () => {
  let agent: Agent;
  beforeEach(() => {
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterEach(() => agent.destroy());

  it('lets a request in flight finish, then closes its keep-alive socket long before the deadline', async () => {
    const { server, port } = await startServer();
    expect((await get(port, '/', agent)).status).toBe(200); // the socket is now a kept-alive one
    const inFlight = get(port, '/slow?ms=300', agent);
    await wait(50);
    const started = Date.now();
    expect(await drainServers([server], 8000)).toEqual({ cutAtDeadline: 0 });
    const answer = await inFlight;
    expect(answer).toMatchObject({ status: 200, body: 'done' });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(server.listening).toBe(false);
  });

  it('answers a keep-alive client that goes on sending with Connection: close, so it moves on', async () => {
    const { server, port } = await startServer();
    expect((await get(port, '/', agent)).headers.connection).toBe('keep-alive');
    const inFlight = get(port, '/slow?ms=200', agent);
    await wait(50);
    const drained = drainServers([server], 8000);
    // Queued behind the request in flight, on the same socket (maxSockets 1), after close().
    const next = get(port, '/', agent);
    const [first, second] = await Promise.all([inFlight, next]);
    expect(first.status).toBe(200);
    expect(second).toMatchObject({ status: 200, headers: { connection: 'close' } });
    await drained;
  });

  it('cuts a request that outlasts the deadline, and returns at the deadline', async () => {
    const { server, port } = await startServer();
    const stuck = get(port, '/slow?ms=60000', agent).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code,
    );
    await wait(50);
    const started = Date.now();
    const result = await drainServers([server], 300);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
    expect(await stuck).toBe('ECONNRESET');
    expect(result).toEqual({ cutAtDeadline: 1 });
  });
});
