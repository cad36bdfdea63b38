import { createServer } from 'node:net';

/** Whether a listener on 127.0.0.1:port can bind now. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/*
 * Ports handed out here are bound later by another process (a built-in upstream, a redis-server).
 * A port the OS picked with listen(0) lies in its ephemeral range (32768–60999 on Linux), which the
 * OS also draws from for outgoing connections: a parallel test's connection to Redis or PostgreSQL
 * could take it in between and make that bind fail with EADDRINUSE. So ports come from below that
 * range, 10000–19999 (the Redis Cluster helper uses 20000–22699 and 30000–32699), each Jest worker from its own
 * slice so that two files running side by side never draw the same one.
 */
const FIRST = 10_000;
const WORKER_SLICES = 4;
const SLICE = 10_000 / WORKER_SLICES;
let drawn = Math.floor(Math.random() * SLICE);
/**
 * fetch refuses to connect to the ports of the Fetch standard's "bad port" list (its error reads
 * "bad port", not ECONNREFUSED); 10080 is the one in this range, so tests that fetch never get it.
 */
const FETCH_BAD_PORTS = new Set([10_080]);

/** A port nobody listens on and no outgoing connection can be holding. */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const base = FIRST + ((Math.max(worker, 1) - 1) % WORKER_SLICES) * SLICE;
  for (let i = 0; i < SLICE; i++) {
    const port = base + (drawn++ % SLICE);
    if (!FETCH_BAD_PORTS.has(port) && (await canListen(port))) return port;
  }
  throw new Error('no free port below the ephemeral range');
}
