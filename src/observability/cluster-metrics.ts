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

/**
 * WORKERS=N: the admin port is shared, so a scrape of /metrics lands on any one worker. That worker
 * asks the primary, which collects every worker's registry (prom-client's AggregatorRegistry:
 * counters and histograms summed, gauges by their own aggregator) and answers with the text.
 */
export function serveClusterMetrics(cluster: Cluster): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isAsk(message)) return;
    const reply = (a: Omit<Answer, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...a });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: Error) => reply({ error: err.message }),
    );
  });
}

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
