// npm run bench -- --sweep[=1,2,4,8,32]: the bare proxy (c) and the gateway (d), both up, in closed
// loop at each number of connections in turn: throughput and the server's user and system CPU per
// request. With one connection each request is handled alone, as in the open loop at half of (d)'s
// peak; with 32, many share each turn of the event loop. What a request costs at each tells how
// busy a server is at a given rate, so how fast it drains the queue a stall leaves.
import { closedLoop, cpuDuring, machine, processTree, usPerRequest } from './bench-lib';
import type { LoadTarget } from './bench-lib';
import { treeRevision, writeResults } from './gateway-report';
import type { Gateway, Server } from './gateway-setup';

export interface SweepOptions {
  bare: Server & { target: LoadTarget };
  gateway: Gateway & { target: LoadTarget };
  connections: number[];
  seconds: number;
  warmup: number;
  distNote: string;
  notes: string[];
}

export interface SweepPoint {
  target: 'c' | 'd';
  connections: number;
  rps: number;
  p99_ms: number;
  user_us_per_req: number;
  system_us_per_req: number;
  /** CPU of the server as a share of one core over the window. */
  busy_pct: number;
}

async function point(
  id: 'c' | 'd',
  s: Server & { target: LoadTarget },
  connections: number,
  seconds: number,
): Promise<SweepPoint> {
  const {
    result: r,
    user,
    system,
    wall,
  } = await cpuDuring(processTree(s.pid), () => closedLoop(s.target, connections, seconds));
  return {
    target: id,
    connections,
    rps: r.rps,
    p99_ms: r.p99_ms,
    user_us_per_req: usPerRequest(user, r.requests),
    system_us_per_req: usPerRequest(system, r.requests),
    busy_pct: Math.round(((user + system) / wall) * 100),
  };
}

export async function sweep(o: SweepOptions): Promise<void> {
  const servers = { c: o.bare, d: o.gateway } as const;
  for (const s of Object.values(servers)) await closedLoop(s.target, 32, o.warmup);
  const points: SweepPoint[] = [];
  for (const connections of o.connections) {
    for (const id of ['c', 'd'] as const) {
      const p = await point(id, servers[id], connections, o.seconds);
      points.push(p);
      console.log(
        `(${id}) ${connections} connection(s): ${p.rps} req/s, p99 ${p.p99_ms} ms, CPU ${p.user_us_per_req} µs user + ${p.system_us_per_req} µs system a request, ${p.busy_pct} % of a core`,
      );
    }
  }
  const file = writeResults('gateway-sweep', {
    date: new Date().toISOString(),
    machine: machine(),
    build: o.distNote,
    revision: treeRevision(),
    seconds: o.seconds,
    gateway_node_flags: o.gateway.nodeFlags,
    points,
    notes: o.notes,
  });
  console.log(`written: ${file}`);
}
