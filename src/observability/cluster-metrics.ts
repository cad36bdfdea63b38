import type { Cluster } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Registry } from 'prom-client';

const ASK = 'lookup:cluster-metrics';
const ANSWER = 'lookup:cluster-metrics-text';

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAsk = (m: unknown): m is Ask => (m as Ask | null)?.type === ASK;
const isAnswer = (m: unknown): m is Answer => (m as Answer | null)?.type === ANSWER;

// prom-client's own collection messages, which its worker side (clusterMetricsSource) answers.
const GET_METRICS_REQ = 'prom-client:getMetricsReq';
const GET_METRICS_RES = 'prom-client:getMetricsRes';

/** One worker's answer: its registries' metrics, as getMetricsAsJSON gives them. */
type WorkerMetrics = { type?: unknown; name?: unknown }[][];
interface MetricsAnswer {
  type: typeof GET_METRICS_RES;
  requestId: number;
  metrics?: WorkerMetrics;
  error?: string;
}
const isMetricsAnswer = (m: unknown): m is MetricsAnswer =>
  (m as MetricsAnswer | null)?.type === GET_METRICS_RES;

interface Collection {
  waiting: Set<number>;
  answers: Map<number, WorkerMetrics>;
  done(err?: Error): void;
}

/**
 * WORKERS=N: the admin port is shared, so a scrape of /metrics lands on any one worker. That worker
 * asks the primary, which collects every worker's registry and sums them (prom-client's
 * AggregatorRegistry.aggregate: counters and histograms summed, gauges by their own aggregator).
 * A worker that dies takes its counts with it; summed over the live ones only, every counter of
 * the pod would then go back, which Prometheus reads as a reset and turns into an increase that
 * never happened. So the counters and histograms of a worker gone stay in the sum, as the last
 * collection saw them (its gauges, which describe a live process, go).
 */
export function serveClusterMetrics(cluster: Cluster, timeoutMs = 5_000): void {
  const lastSeen = new Map<number, WorkerMetrics>();
  let retired: WorkerMetrics = [];
  const collections = new Map<number, Collection>();
  let nextId = 0;

  const collect = (): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const live = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
      const timer = setTimeout(() => collection.done(new Error('Operation timed out.')), timeoutMs);
      const collection: Collection = {
        waiting: new Set(live.map((w) => w!.id)),
        answers: new Map(),
        done: (err) => {
          clearTimeout(timer);
          collections.delete(id);
          if (err) return reject(err);
          for (const [worker, metrics] of collection.answers) lastSeen.set(worker, metrics);
          // A worker seen before that did not answer this time is dead or dying, its exit not yet
          // handled: its counts as last seen, as they will stay once it is retired.
          const silent = [...lastSeen]
            .filter(([w]) => !collection.answers.has(w))
            .map(([, m]) => monotonic(m));
          const all = [...[...collection.answers.values()].flat(), ...silent.flat(), ...retired];
          AggregatorRegistry.aggregate(all).metrics().then(resolve, reject);
        },
      };
      collections.set(id, collection);
      if (collection.waiting.size === 0) return collection.done();
      for (const w of live) w!.send({ type: GET_METRICS_REQ, requestId: id });
    });

  cluster.on('message', (worker, message: unknown) => {
    if (isMetricsAnswer(message)) {
      const c = collections.get(message.requestId);
      // Not waited for: a worker whose exit was handled first (IPC does not order an answer before
      // the exit), whose counts are retired; taken, it would be counted twice from then on.
      if (!c?.waiting.has(worker.id)) return;
      if (message.error !== undefined) return c.done(new Error(message.error));
      c.answers.set(worker.id, message.metrics ?? []);
      c.waiting.delete(worker.id);
      if (c.waiting.size === 0) c.done();
      return;
    }
    if (!isAsk(message)) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...a });
    };
    collect().then(
      (text) => reply({ text }),
      (err: Error) => reply({ error: err.message }),
    );
  });

  cluster.on('exit', (worker) => {
    // Its newest counts: an answer to a collection still running is newer than the last one seen.
    // They are retired, and taken out of those collections, which would otherwise put the worker
    // back among the ones seen and count it twice, then and at every later scrape.
    let newest = lastSeen.get(worker.id);
    // In the order the collections started: the last one answered holds the newest counts.
    for (const c of collections.values()) {
      newest = c.answers.get(worker.id) ?? newest;
      c.answers.delete(worker.id);
    }
    lastSeen.delete(worker.id);
    // Retired first, so that a collection this exit completes counts the worker once.
    if (newest) retire(monotonic(newest));
    for (const c of collections.values()) {
      if (c.waiting.delete(worker.id) && c.waiting.size === 0) c.done();
    }
  });

  function retire(kept: WorkerMetrics): void {
    const parts = [...retired, ...kept];
    retired = parts;
    // Folded into one set of sums, so the list does not grow with every worker that ever died.
    AggregatorRegistry.aggregate(parts)
      .getMetricsAsJSON()
      .then(
        (folded) => {
          if (retired === parts) retired = [folded];
        },
        () => undefined,
      );
  }
}

/** Counters and histograms only: a gauge describes a live process, and goes with it. */
const monotonic = (metrics: WorkerMetrics): WorkerMetrics =>
  metrics.map((registry) => registry.filter((m) => m.type === 'counter' || m.type === 'histogram'));

/** In a worker: answers the primary's collection with `registry`, and asks the primary for the whole. */
export function clusterMetricsSource(registry: Registry, timeoutMs = 7_000): () => Promise<string> {
  new AggregatorRegistry(); // installs the worker's side of prom-client's collection
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (a: Answer) => void>();
  process.on('message', (message: unknown) => {
    if (isAnswer(message)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the cluster primary did not answer for the metrics'));
      }, timeoutMs);
      waiting.set(id, (a) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (a.text !== undefined) resolve(a.text);
        else reject(new Error(a.error ?? 'no metrics'));
      });
      process.send?.({ type: ASK, id } satisfies Ask);
    });
}
