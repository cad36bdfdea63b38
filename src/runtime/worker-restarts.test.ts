import { ManualClock } from '../util/clock';
import { createWorkerRestarts } from './worker-restarts';
import type { RestartOptions } from './worker-restarts';

const OPTS: RestartOptions = {
  baseDelayMs: 250,
  maxDelayMs: 2_000,
  stableAfterMs: 30_000,
  maxQuickDeaths: 5,
};

function cluster(clock = new ManualClock(0)) {
  const restarts = createWorkerRestarts(clock, OPTS);
  let next = 1;
  const start = (): number => {
    const id = next++;
    restarts.started(id);
    return id;
  };
  /** Starts a worker, lets `liveMs` pass (ready or not) and has it die: the delays of the restarts. */
  const deaths = (n: number, liveMs: number, ready: boolean): number[] => {
    const delays: number[] = [];
    for (let i = 0; i < n; i++) {
      const w = start();
      if (ready) restarts.ready(w);
      clock.advance(liveMs);
      const d = restarts.exited(w);
      if (d.kind === 'restart') delays.push(d.delayMs);
    }
    return delays;
  };
  return { clock, restarts, start, deaths };
}

describe('restarting gateway workers', () => {
  it('gives up when a worker fails its startup before any worker ever served (a bad config fails the same way again)', () => {
    const { restarts, start } = cluster();
    start();
    const b = start();
    expect(restarts.exited(b)).toEqual({ kind: 'give-up', reason: 'never_started' });
  });

  it('replaces a worker that dies after serving, after the base delay', () => {
    const { clock, restarts, start } = cluster();
    const a = start();
    restarts.ready(a);
    clock.advance(60_000);
    expect(restarts.exited(a)).toEqual({ kind: 'restart', delayMs: 250 });
  });

  it('replaces a worker that fails its startup once another has served (the database went away, say)', () => {
    const { restarts, start } = cluster();
    restarts.ready(start());
    const b = start();
    expect(restarts.exited(b)).toEqual({ kind: 'restart', delayMs: 250 });
  });

  it('doubles the delay with each quick death in a row, up to the ceiling', () => {
    const { restarts, start, deaths } = cluster();
    restarts.ready(start());
    expect(deaths(5, 1_000, true)).toEqual([250, 500, 1_000, 2_000, 2_000]);
  });

  it('stops restarting after the allowed number of quick deaths in a row once no worker serves', () => {
    const { restarts, start, deaths } = cluster();
    const a = start();
    restarts.ready(a);
    expect(restarts.exited(a)).toEqual({ kind: 'restart', delayMs: 250 });
    // The 2nd to the 4th quick deaths are replaced; the 5th (maxQuickDeaths) is the last.
    expect(deaths(3, 100, false)).toHaveLength(3);
    expect(restarts.exited(start())).toEqual({ kind: 'give-up', reason: 'crash_loop' });
  });

  it('keeps replacing at the ceiling while another worker still serves (a replacement that cannot start)', () => {
    const { restarts, start, deaths } = cluster();
    restarts.ready(start());
    expect(deaths(8, 100, false)).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it('counts again from the start after a worker served long enough: one-off crashes never add up', () => {
    const { restarts, start, deaths } = cluster();
    restarts.ready(start());
    expect(deaths(20, OPTS.stableAfterMs, true)).toEqual(Array(20).fill(250));
  });

  it('does not count a worker that lived long but never got through its startup as stable', () => {
    const { restarts, start, deaths } = cluster();
    restarts.ready(start());
    expect(deaths(3, OPTS.stableAfterMs * 2, false)).toEqual([250, 500, 1_000]);
  });
});
