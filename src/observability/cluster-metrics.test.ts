import type { Cluster, Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { Counter, Registry } from 'prom-client';
import { serveClusterMetrics } from './cluster-metrics';

/** A worker of a stand-in cluster: what the primary sends it is kept, to be answered by the test. */
class FakeWorker {
  connected = true;
  readonly sent: { type: string; requestId?: number; id?: number; text?: string }[] = [];
  constructor(readonly id: number) {}
  isConnected(): boolean {
    return this.connected;
  }
  send(m: { type: string; requestId?: number }): boolean {
    this.sent.push(m);
    return true;
  }
}

/** One worker's registry holding `lookup_test_total` at `n`, as it answers a collection. */
async function countsOf(n: number): Promise<unknown[][]> {
  const registry = new Registry();
  new Counter({ name: 'lookup_test_total', help: 'test', registers: [registry] }).inc(n);
  return [await registry.getMetricsAsJSON()];
}

/** The primary's side with two workers, a and b; every scrape lands on b. */
function twoWorkers() {
  const cluster = new EventEmitter() as EventEmitter & { workers: Record<number, FakeWorker> };
  const a = new FakeWorker(1);
  const b = new FakeWorker(2);
  cluster.workers = { 1: a, 2: b };
  serveClusterMetrics(cluster as unknown as Cluster);
  const asWorker = (w: FakeWorker) => w as unknown as Worker;
  return {
    a,
    b,
    /** A scrape of /metrics landing on b: b asks the primary for the whole. */
    scrape: () => cluster.emit('message', asWorker(b), { type: 'lookup:cluster-metrics', id: b.sent.length }),
    /** `w` answers the collection the primary last asked it for, at `n`. */
    answer: async (w: FakeWorker, n: number) => {
      const asked = w.sent.filter((m) => m.type === 'prom-client:getMetricsReq').at(-1)!;
      cluster.emit('message', asWorker(w), {
        type: 'prom-client:getMetricsRes',
        requestId: asked.requestId,
        metrics: await countsOf(n),
      });
    },
    exit: (w: FakeWorker) => {
      w.connected = false;
      delete cluster.workers[w.id];
      cluster.emit('exit', asWorker(w));
    },
    /** lookup_test_total in each answer b was given, once they are all in. */
    totals: async () => {
      await new Promise((r) => setTimeout(r, 50));
      return b.sent
        .filter((m) => m.type === 'lookup:cluster-metrics-text')
        .map((m) => /lookup_test_total (\d+)/.exec(m.text ?? '')?.[1]);
    },
  };
}

describe('metrics of WORKERS=N summed by the primary', () => {
  it('counts a worker that answered a collection, then exited before the others did, once: then and at later scrapes', async () => {
    const { a, b, scrape, answer, exit, totals } = twoWorkers();
    scrape(); // both answer: a at 5, b at 3
    await answer(a, 5);
    await answer(b, 3);
    scrape(); // a answers at 7, then exits before b answers
    await answer(a, 7);
    exit(a);
    await answer(b, 4);
    scrape(); // b alone
    await answer(b, 4);
    expect(await totals()).toEqual(['8', '11', '11']);
  });

  it('leaves out an answer that comes after its worker’s exit, whose counts as last seen are kept', async () => {
    const { a, b, scrape, answer, exit, totals } = twoWorkers();
    scrape();
    await answer(a, 5);
    await answer(b, 3);
    scrape(); // a exits, and its answer (at 7) is read after the exit
    exit(a);
    await answer(a, 7);
    await answer(b, 4);
    scrape();
    await answer(b, 4);
    expect(await totals()).toEqual(['8', '9', '9']);
  });
});
