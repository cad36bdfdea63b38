/**
 * The open loop's generator keeps a pool per origin; a warm-up asks for a fresh one, so that the
 * connections an earlier window opened close before it, not all at once when their keep-alive runs
 * out inside a later measured window (step 29 of the doc).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadTarget } from '../../bench/bench-lib';
import type { OpenLoop } from '../../bench/open-loop-client';
import { openLoopWindow } from '../../bench/open-loop-generator';
import { openLoopRounds } from '../../bench/open-loop-rounds';
import { openLoopResult } from '../support/open-loop-result';

interface Counted {
  server: Server;
  url: string;
  opened: () => number;
  closed: () => number;
}

/** A server that keeps idle connections as long as the bench's servers do, counting them. */
async function countingServer(): Promise<Counted> {
  let opened = 0;
  let closed = 0;
  const server = createServer((_req, res) => res.end('{}'));
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    opened += 1;
    socket.on('close', () => (closed += 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/`, opened: () => opened, closed: () => closed };
}

/** Lets the server see the FIN of a socket the client closed. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('the open-loop generator starts a fresh pool when a warm-up asks for one', () => {
  let s: Counted;
  beforeEach(async () => {
    s = await countingServer();
  });
  afterEach(async () => {
    // Closes the generator's pool for this origin, so no socket outlives the test.
    await openLoopWindow({ url: s.url, headers: {}, rate: 1, seconds: 0, freshPool: true });
    s.server.closeAllConnections();
    await new Promise((resolve) => s.server.close(resolve));
  });

  it('reuses the connections of the window before when no fresh pool is asked for', async () => {
    await openLoopWindow({ url: s.url, headers: {}, rate: 400, seconds: 0.25 });
    const opened = s.opened();
    expect(opened).toBeGreaterThan(0);
    await openLoopWindow({ url: s.url, headers: {}, rate: 1, seconds: 1 });
    await settle();
    expect(s.closed()).toBe(0);
    expect(s.opened()).toBe(opened);
  });

  it('closes every connection of the old pool before the window with a fresh one', async () => {
    await openLoopWindow({ url: s.url, headers: {}, rate: 400, seconds: 0.25 });
    const opened = s.opened();
    const r = await openLoopWindow({ url: s.url, headers: {}, rate: 100, seconds: 0.2, freshPool: true });
    await settle();
    expect(r.completed).toBe(20);
    expect(r.errors).toBe(0);
    expect(s.closed()).toBe(opened);
    expect(s.opened()).toBeGreaterThan(opened);
  });
});

describe('the open loop asks for a fresh pool in every warm-up and in no measured window', () => {
  beforeEach(() => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  it('marks the first warm-up and each window warm-up fresh, and the measured windows not', async () => {
    const calls: { url: string; seconds: number; fresh: boolean }[] = [];
    const gen: OpenLoop = {
      pid: 0,
      close: () => Promise.resolve(),
      run(target: LoadTarget, _rate, seconds, opts) {
        calls.push({ url: target.url, seconds, fresh: opts?.freshPool === true });
        return Promise.resolve(openLoopResult(2));
      },
    };
    // 2 rounds of 1 s windows after 3 s warm-ups, and 20 s on each target first.
    await openLoopRounds(gen, { a: { url: 'a' }, d: { url: 'd' } }, 100, 1, 2, 3, undefined, 20);
    expect(calls).toEqual([
      { url: 'a', seconds: 20, fresh: true },
      { url: 'd', seconds: 20, fresh: true },
      ...[1, 2].flatMap(() => [
        { url: 'a', seconds: 3, fresh: true },
        { url: 'a', seconds: 1, fresh: false },
        { url: 'd', seconds: 3, fresh: true },
        { url: 'd', seconds: 1, fresh: false },
      ]),
    ]);
  });
});
