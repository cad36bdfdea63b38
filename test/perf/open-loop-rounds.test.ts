/**
 * The open loop's rounds (bench/open-loop-rounds.ts) count the gateway's full collections in each
 * measured window, from its own counter read before and after the window, warm-up left out, and
 * the report sets the rounds with one apart from those without (step 23 of the doc).
 */
import type { LoadTarget } from '../../bench/bench-lib';
import type { OpenLoop } from '../../bench/open-loop-client';
import { openLoopMarkdown, openLoopRounds } from '../../bench/open-loop-rounds';
import type { OpenTarget } from '../../bench/open-loop-rounds';
import { openLoopResult } from '../support/open-loop-result';

/** A generator whose windows on the gateway run a full GC in the given runs (0-based, warm-ups included). */
function fakeLoop(gatewayUrl: string, gcInRun: Set<number>, gc: { count: number }): OpenLoop {
  let gatewayRuns = 0;
  return {
    pid: 0,
    close: () => Promise.resolve(),
    run(target: LoadTarget) {
      if (target.url !== gatewayUrl) return Promise.resolve(openLoopResult(2));
      if (gcInRun.has(gatewayRuns)) gc.count += 1;
      gatewayRuns += 1;
      return Promise.resolve(openLoopResult(gcInRun.has(gatewayRuns - 1) ? 30 : 4));
    },
  };
}

describe('the open loop counts the gateway full collections per measured window', () => {
  const upstream: OpenTarget = { url: 'http://upstream' };

  // The rounds print their progress as a run goes; the test reads what they return.
  beforeEach(() => {
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  it('counts a collection in the measured window and not one in the warm-up before it', async () => {
    const gc = { count: 7 };
    // Gateway runs: round 1 warm-up 0, window 1; round 2 warm-up 2, window 3; round 3 warm-up 4, window 5.
    const gen = fakeLoop('http://gateway', new Set([2, 5]), gc);
    const gateway: OpenTarget = { url: 'http://gateway', fullGcs: () => Promise.resolve(gc.count) };
    const out = await openLoopRounds(gen, { a: upstream, d: gateway }, 100, 1, 3, 1);
    expect(out.rounds.map((r) => r.d.server_full_gcs)).toEqual([0, 0, 1]);
    const line = openLoopMarkdown(out).find((l) => l.startsWith('Full GCs of the gateway'));
    expect(line).toBe(
      'Full GCs of the gateway in each measured window (its /metrics), by round: 0, 0, 1; ' +
        'p99 added in the windows with one: 28; without: 2, 2.',
    );
  });

  it('leaves the count and its line out when the target does not report one', async () => {
    const gen = fakeLoop('http://gateway', new Set(), { count: 0 });
    const out = await openLoopRounds(gen, { a: upstream, d: { url: 'http://gateway' } }, 100, 1, 2, 1);
    expect(out.rounds).toHaveLength(2);
    expect(out.rounds.every((r) => r.d.server_full_gcs === undefined)).toBe(true);
    expect(openLoopMarkdown(out).some((l) => l.startsWith('Full GCs'))).toBe(false);
  });

  it('leaves a window uncounted when the counter cannot be read after it', async () => {
    let reads = 0;
    const gen = fakeLoop('http://gateway', new Set(), { count: 0 });
    const gateway: OpenTarget = {
      url: 'http://gateway',
      fullGcs: () => Promise.resolve(reads++ === 0 ? 3 : undefined),
    };
    const out = await openLoopRounds(gen, { a: upstream, d: gateway }, 100, 1, 1, 1);
    expect(out.rounds[0]!.d.server_full_gcs).toBeUndefined();
  });
});
