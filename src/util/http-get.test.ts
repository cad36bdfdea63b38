import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpGet } from './http-get';

let server: Server;
let base: URL;
const clientPorts: number[] = [];
const requestIds: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    clientPorts.push(req.socket.remotePort ?? 0);
    requestIds.push(req.headers['x-request-id'] as string | undefined);
    // Never answered: afterAll closes the connection.
    if (req.url === '/slow') return;
    if (req.url === '/big') return void res.end('x'.repeat(5000));
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ total: 42, path: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('httpGet', () => {
  it('returns the status and the whole body as text', async () => {
    const r = await httpGet(new URL('/legal-documents/_stats', base), 1000);
    expect(r.status).toBe(200);
    expect(r.ok).toBe(true);
    expect(JSON.parse(r.body)).toEqual({ total: 42, path: '/legal-documents/_stats' });
  });

  it('sends a fresh X-Request-Id with every call, as every gateway → upstream request carries one', async () => {
    requestIds.length = 0;
    await httpGet(new URL('/healthz', base), 1000);
    await httpGet(new URL('/healthz', base), 1000);
    expect(requestIds).toHaveLength(2);
    for (const id of requestIds) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIds[0]).not.toBe(requestIds[1]);
  });

  it('returns an error status as it is, for the caller to judge', async () => {
    const r = await httpGet(new URL('/missing', base), 1000);
    expect(r.status).toBe(404);
    expect(r.ok).toBe(false);
  });

  it('opens a connection of its own for every call, so no idle socket meets the upstream timing it out', async () => {
    clientPorts.length = 0;
    await httpGet(new URL('/healthz', base), 1000);
    await httpGet(new URL('/healthz', base), 1000);
    expect(clientPorts).toHaveLength(2);
    expect(clientPorts[0]).not.toBe(clientPorts[1]);
  });

  it('fails when the answer does not come within the deadline, saying so', async () => {
    const started = Date.now();
    await expect(httpGet(new URL('/slow', base), 100)).rejects.toThrow('no answer within 100 ms');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('fails on an answer longer than its limit instead of reading it all', async () => {
    await expect(httpGet(new URL('/big', base), 1000, 1024)).rejects.toThrow(/over 1024 bytes/);
  });

  it('fails when nothing listens there', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(httpGet(new URL(`http://127.0.0.1:${port}/healthz`), 1000)).rejects.toThrow();
  });
});
