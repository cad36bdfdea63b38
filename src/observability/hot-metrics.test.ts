import { Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-metrics';

const BUCKETS = [0.001, 0.01, 0.1, 0.5, 1];

function pair() {
  const a = new Registry();
  const b = new Registry();
  const names = ['dataset', 'plan'] as const;
  return {
    a,
    b,
    counters: [
      new Counter({ name: 'x_total', help: 'X.', labelNames: names, registers: [a] }),
      new HotCounter({ name: 'x_total', help: 'X.', labelNames: names, registers: [b] }),
    ] as const,
    histograms: [
      new Histogram({
        name: 'y_seconds',
        help: 'Y.',
        labelNames: ['dataset'],
        buckets: BUCKETS,
        registers: [a],
      }),
      new HotHistogram({
        name: 'y_seconds',
        help: 'Y.',
        labelNames: ['dataset'],
        buckets: BUCKETS,
        registers: [b],
      }),
    ] as const,
  };
}

describe('hot metrics', () => {
  it('render the same Prometheus text and JSON as prom-client for the same updates', async () => {
    const p = pair();
    const incs: [Record<'dataset' | 'plan', string>, number?][] = [
      [{ dataset: 'legal-documents', plan: 'pro' }],
      [{ plan: 'free', dataset: 'legal-documents' }, 3],
      [{ dataset: 'legal-documents', plan: 'pro' }, 2.5],
      [{ dataset: 'a"b\\c\nd', plan: 'pro' }, 0],
    ];
    for (const [labels, v] of incs) for (const c of p.counters) c.inc({ ...labels }, v);
    const observations: [string, number][] = [
      ['legal-documents', 0.0004],
      ['legal-documents', 0.001],
      ['legal-documents', 0.3],
      ['catalogs', 7],
      ['legal-documents', 0],
      ['catalogs', 0.01],
    ];
    for (const [dataset, v] of observations) for (const h of p.histograms) h.observe({ dataset }, v);
    expect(await p.b.metrics()).toBe(await p.a.metrics());
    expect(await p.b.getMetricsAsJSON()).toEqual(await p.a.getMetricsAsJSON());
  });

  it('start again from nothing after a registry reset', async () => {
    const p = pair();
    for (const c of p.counters) c.inc({ dataset: 'd', plan: 'p' });
    for (const h of p.histograms) h.observe({ dataset: 'd' }, 0.2);
    p.a.resetMetrics();
    p.b.resetMetrics();
    for (const h of p.histograms) h.observe({ dataset: 'e' }, 0.02);
    expect(await p.b.metrics()).toBe(await p.a.metrics());
  });

  it('keep their own copy of the labels, so a caller may reuse its object', async () => {
    const { b, counters } = pair();
    const labels = { dataset: 'd', plan: 'p' };
    counters[1].inc(labels);
    labels.plan = 'changed';
    expect(await b.metrics()).toContain('x_total{dataset="d",plan="p"} 1');
  });

  it('refuse a value that is not a finite number, a negative count, and a new label set with a missing or unknown label', () => {
    const { counters, histograms } = pair();
    expect(() => histograms[1].observe({ dataset: 'd' }, NaN)).toThrow();
    expect(() => histograms[1].observe({ dataset: 'd' }, Infinity)).toThrow();
    expect(() => counters[1].inc({ dataset: 'd', plan: 'p' }, -1)).toThrow();
    expect(() => counters[1].inc({ dataset: 'd' } as { dataset: string; plan: string })).toThrow();
    expect(() => histograms[1].observe({ dataset: 'd', other: 'x' } as { dataset: string }, 1)).toThrow();
  });
});
