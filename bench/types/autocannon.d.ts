// The part of autocannon 9's API the gateway bench uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      headers?: Record<string, string>;
      method?: string;
      timeout?: number;
      overallRate?: number;
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
      p99_9: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      [status: `${number}xx`]: number;
    }
    interface Instance {
      stop(): void;
    }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result> & autocannon.Instance;
  export = autocannon;
}
