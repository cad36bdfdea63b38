import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEndOfTurn } from '../../util/end-of-turn';
import { createBodyBudget } from './body-budget';
import { createUpstreamProxy } from './upstream-proxy';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
const pair: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    // Far slower than every deadline here, so a pause of the test process cannot let it answer in time.
    if (req.url?.includes('slow')) return void setTimeout(() => res.end('{}'), 3_000).unref();
    if (req.url?.startsWith('/held?ms=')) {
      // Holds its connection for the given time, then answers.
      const ms = Number(req.url.slice('/held?ms='.length));
      return void setTimeout(() => res.end('{}'), ms).unref();
    }
    if (req.url?.includes('cut')) {
      // Promises 1000 bytes, sends 10, then drops the connection.
      res.writeHead(200, { 'content-length': '1000' });
      res.write('{"data":[');
      return void setTimeout(() => res.socket?.destroy(), 20);
    }
    if (req.url?.includes('two-halves')) {
      // 2 MB: the first half once a pair of requests is in (or at once with `alone`), the second
      // 200 ms later, so the pair's answers are held at the same time.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * 2 ** 20) });
      pair.push(res);
      if (pair.length === 2 || req.url.includes('alone'))
        for (const r of pair.splice(0)) {
          r.write(Buffer.alloc(2 ** 20, 0x20));
          setTimeout(() => r.end(Buffer.alloc(2 ** 20, 0x20)), 200);
        }
      return;
    }
    res.writeHead(req.url?.includes('missing') ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [], total: 0 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const request = { requestId: 'req-1', authorization: 'Bearer jwt.token.here', clientIp: '203.0.113.9' };

describe('upstream proxy: forwarding', () => {
  test('it sends the request id, the identity assertion and the caller address, and answers status and body', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    const reply = await proxy.forward({ ...request, path: '/legal-documents?q=luat&page=1' });
    proxy.close();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body.toString('utf8'))).toEqual({ data: [], total: 0 });
    const last = seen.at(-1)!;
    expect(last.url).toBe('/legal-documents?q=luat&page=1');
    expect(last.headers['x-request-id']).toBe('req-1');
    expect(last.headers.authorization).toBe('Bearer jwt.token.here');
    expect(last.headers['x-forwarded-for']).toBe('203.0.113.9');
    expect(last.headers.host).toBe(new URL(base).host);
  });

  test('a base path in the upstream URL prefixes every path', async () => {
    const proxy = createUpstreamProxy('t', { url: `${base}/api/v2/`, timeout_ms: 2_000, pool_size: 4 });
    await proxy.forward({ ...request, path: '/org-units/ou_1' });
    proxy.close();
    expect(seen.at(-1)!.url).toBe('/api/v2/org-units/ou_1');
  });

  test('an upstream 404 is an answer, not a failure', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    const reply = await proxy.forward({ ...request, path: '/x/missing' });
    proxy.close();
    expect(reply.status).toBe(404);
  });

  test('requests made in one turn go out together once the turn is over, each with its own answer', async () => {
    const proxy = createUpstreamProxy(
      't',
      { url: base, timeout_ms: 2_000, pool_size: 4 },
      createEndOfTurn(() => undefined),
    );
    const before = seen.length;
    const replies = [1, 2, 3].map((i) => proxy.forward({ ...request, path: `/legal-documents?page=${i}` }));
    await Promise.resolve();
    expect(seen.length).toBe(before); // nothing sent within the turn
    const answered = await Promise.all(replies);
    proxy.close();
    expect(answered.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(
      seen
        .slice(before)
        .map((s) => s.url)
        .sort(),
    ).toEqual([1, 2, 3].map((i) => `/legal-documents?page=${i}`));
  });
  test('a request that arrives after close() is still answered (a reload closes old pools late)', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    await proxy.forward({ ...request, path: '/x' });
    proxy.close();
    const reply = await proxy.forward({ ...request, path: '/x' });
    proxy.close();
    expect(reply.status).toBe(200);
  });
  test('a request in flight when close() comes finishes with its answer (a reload closes old pools at a fixed time)', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    const inFlight = proxy.forward({ ...request, path: '/held?ms=300' });
    await new Promise((r) => setTimeout(r, 100));
    proxy.close();
    const reply = await inFlight.then(
      (r) => r.status,
      (e: unknown) => String(e),
    );
    expect(reply).toBe(200);
  });
});

describe('upstream proxy: failures', () => {
  test('answers held at once across upstreams stay within the memory bound: the one that would pass it fails, and its bytes go back', async () => {
    const memory = createBodyBudget(2.5 * 2 ** 20);
    const cfg = { url: base, timeout_ms: 2_000, pool_size: 4 };
    const [a, b] = [
      createUpstreamProxy('a', cfg, undefined, memory),
      createUpstreamProxy('b', cfg, undefined, memory),
    ];
    const outcomes = await Promise.allSettled([
      a.forward({ ...request, path: '/two-halves?1' }),
      b.forward({ ...request, path: '/two-halves?2' }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const failed = outcomes.find((o) => o.status === 'rejected')!;
    expect(String(failed.reason)).toMatch(/upstream_memory_mb/);
    const served = outcomes.find((o) => o.status === 'fulfilled')!;
    expect(served.value.body.length).toBe(2 * 2 ** 20);
    // The failed one's bytes went back at once; the served one's are held until it is released
    // (once reshaped), and only once.
    expect(memory.held()).toBe(2 * 2 ** 20);
    served.value.release();
    served.value.release();
    expect(memory.held()).toBe(0);
    // Alone, the same answer fits.
    const alone = await b.forward({ ...request, path: '/two-halves?alone' });
    expect(alone.body.length).toBe(2 * 2 ** 20);
    alone.release();
    expect(memory.held()).toBe(0);
    a.close();
    b.close();
  });

  test('an upstream slower than timeout_ms is abandoned with an error', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 100, pool_size: 4 });
    const t0 = Date.now();
    await expect(proxy.forward({ ...request, path: '/slow' })).rejects.toMatchObject({
      message: expect.stringMatching(/timeout/),
      reason: 'timeout',
    });
    expect(Date.now() - t0).toBeLessThan(900);
    proxy.close();
  });

  test("a call that waited for a connection says how long, apart from the upstream's own time", async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 1 });
    const first = proxy.forward({ ...request, path: '/two-halves-alone' });
    const second = proxy.forward({ ...request, path: '/x' });
    const [a, b] = await Promise.all([first, second]);
    a.release();
    b.release();
    proxy.close();
    // The first answer takes 200 ms; the second was sent only once its connection was free. Told
    // apart by the difference, not by the first's own few ms: a pause of this process (a GC, the
    // other suites on the cores) lengthens both.
    expect(b.waitedMs).toBeGreaterThanOrEqual(150);
    expect(b.waitedMs - a.waitedMs).toBeGreaterThanOrEqual(150);
  });

  test('the deadline runs from the call, also while the request waits to be sent', async () => {
    const never = (): void => undefined; // a queue that never sends
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 100, pool_size: 4 }, never);
    await expect(proxy.forward({ ...request, path: '/x' })).rejects.toMatchObject({
      message: expect.stringMatching(/timeout/),
      reason: 'no_connection',
    });
    proxy.close();
  });

  test("a call sent with less than half its deadline left, then timing out, is counted as the pool's, not the upstream's", async () => {
    // pool_size 1: the second call waits for the first's connection, then gets no answer in time.
    const after = async (heldMs: number, path: string): Promise<{ reason: unknown; sent: boolean }> => {
      const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 1 });
      const first = proxy.forward({ ...request, path: `/held?ms=${heldMs}` });
      const failure = await proxy.forward({ ...request, path }).catch((err: unknown) => err);
      (await first).release();
      proxy.close();
      return {
        reason: (failure as { reason?: unknown }).reason,
        sent: seen.some((s) => s.url === path),
      };
    };
    // Sent after 1,200 of its 2,000 ms: had it waited less, the upstream might have answered in time.
    expect(await after(1_200, '/slow?late')).toEqual({ reason: 'no_connection', sent: true });
    // Sent after 50 ms: the upstream had the time and did not answer.
    expect(await after(50, '/slow?early')).toEqual({ reason: 'timeout', sent: true });
  });

  test('an answer cut off before its end is an error, not a short body', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    const t0 = Date.now();
    // The network's failure, seen when the socket drops: not the deadline's, 2 s later.
    await expect(proxy.forward({ ...request, path: '/cut' })).rejects.toMatchObject({ reason: 'network' });
    expect(Date.now() - t0).toBeLessThan(1_500);
    proxy.close();
  });

  test('a request abandoned at its deadline frees its connection for the next one', async () => {
    // The deadline (1 s) leaves the next request time to connect and be answered after a pause of
    // the test process on a loaded machine (at 100 ms it once timed out too in CI); the slow answer
    // comes at 3 s, so the next one answered before that did not wait for it.
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 1_000, pool_size: 1 });
    const t0 = Date.now();
    await expect(proxy.forward({ ...request, path: '/slow' })).rejects.toThrow(/timeout/);
    const reply = await proxy.forward({ ...request, path: '/x' });
    proxy.close();
    expect(reply.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(2_900);
  });

  test('requests abandoned while waiting for a connection are never sent and open no connection', async () => {
    let connections = 0;
    const onConnection = (): void => void connections++;
    server.on('connection', onConnection);
    const timeoutMs = 100;
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: timeoutMs, pool_size: 1 });
    // Paths of this test's own, one per call: an earlier test's /slow that reaches the server late
    // is not counted, and each request the server sees names its call.
    const paths = Array.from({ length: 10 }, (_, i) => `/slow?burst=${i}`);
    const burst = paths.map((path) => proxy.forward({ ...request, path }));
    const outcomes = await Promise.allSettled(burst);
    // Nothing left holding the connection or waiting for it (a next call is not sent here: its own
    // 100 ms deadline would race a pause of the test process).
    const load = proxy.load();
    proxy.close();
    server.off('connection', onConnection);
    expect(load).toEqual({ inUse: 0, queued: 0 });
    const failures = outcomes.map((o) => {
      if (o.status === 'fulfilled') throw new Error('a call of the burst was answered');
      return o.reason as { reason: string; waitedMs: number };
    });
    // A call is sent only with a tenth of its deadline still ahead, so a failure that had waited
    // longer was never sent. Usually only the first is sent; a call made ≥ 10 ms after it
    // (the test process paused between two calls on a loaded machine) has a later deadline of its
    // own and may rightly be sent when the first gives its connection back.
    const sent = new Set(paths.filter((_, i) => failures[i]!.waitedMs <= timeoutMs * 0.9));
    expect(sent.has(paths[0]!)).toBe(true);
    expect(failures[0]!.reason).toBe('timeout');
    const neverSent = failures.filter((_, i) => !sent.has(paths[i]!));
    expect(neverSent.length).toBeGreaterThan(0);
    expect(new Set(neverSent.map((f) => f.reason))).toEqual(new Set(['no_connection']));
    // The server saw none of the abandoned ones.
    const reached = seen.map((s) => s.url).filter((url) => paths.includes(url));
    expect(reached.filter((url) => !sent.has(url))).toEqual([]);
    // Without the gateway's queue each abandoned request opened a connection (10 here). Now: one
    // per sent request, and at most one more (one more appeared once in a loaded CI run, and could
    // not be reproduced in 60 runs here).
    expect(connections).toBeLessThanOrEqual(sent.size + 1);
  });

  test('a header value the client refuses to send is an error at once, not a wait for the deadline', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 5_000, pool_size: 4 });
    const t0 = Date.now();
    await expect(
      proxy.forward({ ...request, requestId: 'bad\r\nX-Injected: 1', path: '/x' }),
    ).rejects.toThrow();
    expect(Date.now() - t0).toBeLessThan(1_000);
    proxy.close();
  });

  test('an upstream that refuses connections is an error', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const proxy = createUpstreamProxy('t', {
      url: `http://127.0.0.1:${port}`,
      timeout_ms: 2_000,
      pool_size: 4,
    });
    await expect(proxy.forward({ ...request, path: '/x' })).rejects.toMatchObject({ reason: 'network' });
    proxy.close();
  });
});

describe('upstream proxy: security', () => {
  test('nothing of the caller reaches the upstream beyond the fixed headers', async () => {
    const proxy = createUpstreamProxy('t', { url: base, timeout_ms: 2_000, pool_size: 4 });
    await proxy.forward({ ...request, path: '/x' });
    proxy.close();
    const names = Object.keys(seen.at(-1)!.headers).sort();
    expect(names).toEqual([
      'accept',
      'authorization',
      'connection',
      'host',
      'x-forwarded-for',
      'x-request-id',
    ]);
  });
});
