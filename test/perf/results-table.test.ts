/**
 * The table of bench runs (docs/bench-runs.md) is rendered from bench/results/ (bench/results-table.ts): each
 * run is judged against the targets as recorded, and only full runs are listed.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostsMarkdown, nodesMarkdown, recordedRuns, runRow, runsMarkdown } from '../../bench/results-table';
import type { RecordedRun, RunRow } from '../../bench/results-table';

function run(over: Partial<RecordedRun> & { dc: number; added: number[] }): RecordedRun {
  const sorted = [...over.added].sort((a, b) => a - b);
  return {
    date: over.date ?? '2026-11-26T06:30:00.000Z',
    machine: { cpu_model: over.machine?.cpu_model ?? 'AMD EPYC' },
    revision: over.revision,
    notes: over.notes,
    results: [
      { id: 'a', rps: 15000 },
      { id: 'd', rps: 8000 },
    ],
    rounds: { dc: [over.dc - 0.02, over.dc, over.dc + 0.03].map((x) => Math.round(x * 1000) / 1000) },
    ratios: { 'd/c': over.dc },
    open_loop: {
      rate: 4000,
      p99_added_ms: sorted[Math.floor(sorted.length / 2)]!,
      c_p99_added_ms: 2.1,
      rounds: over.added.map((p99_added_ms) => ({ p99_added_ms })),
    },
  };
}

/** Writes a run's JSON into a results directory, as the bench would. */
function writeJson(dir: string, name: string, body: unknown): void {
  writeFileSync(join(dir, name), JSON.stringify(body));
}

describe('the table of recorded bench runs', () => {
  it('marks a run that meets both targets, with its rounds under the line', () => {
    const row = runRow('gateway-x.json', run({ dc: 0.74, added: [3.1, 4.9, 12.5], revision: 'abc1234' }));
    expect(row).toMatchObject({
      dc: 0.74,
      dcRange: '0.72–0.77',
      p99Added: 4.9,
      roundsUnder: '2/3',
      bareP99Added: 2.1,
      directRps: 15000,
      revision: 'abc1234',
      bothMet: true,
    });
  });

  it('does not mark a run that misses either target, even by a little', () => {
    expect(runRow('f', run({ dc: 0.699, added: [1, 2, 3] })).bothMet).toBe(false);
    expect(runRow('f', run({ dc: 0.9, added: [5.01, 5.01, 1] })).bothMet).toBe(false);
    expect(runRow('f', run({ dc: 0.7, added: [5, 5, 5] })).bothMet).toBe(true);
  });

  it('shortens the CPU model and shows a dash for a run recorded without its revision', () => {
    const row = runRow(
      'f',
      run({ dc: 0.7, added: [1], machine: { cpu_model: 'Intel(R) Xeon(R) Processor @ 2.80GHz' } }),
    );
    expect(row.cpu).toBe('Intel Xeon');
    expect(row.revision).toBe('—');
  });

  it("says which heap the gateway had and the diagnostic flags the run's notes record", () => {
    expect(runRow('f', run({ dc: 0.7, added: [1] })).ranWith).toBe('host heap');
    const traced = run({
      dc: 0.7,
      added: [1],
      notes: [
        'the gateway runs with --max-old-space-size=384, the old generation Node gives a replica',
        '(d) runs with these node flags as well: --trace-gc',
      ],
    });
    expect(runRow('f', traced).ranWith).toBe('replica heap, --trace-gc');
    const trial = run({
      dc: 0.7,
      added: [1],
      notes: ['(d) and (e) ran with --heap-growing-percent=100 as well: it was in the working tree'],
    });
    expect(runRow('f', trial).ranWith).toBe('host heap, --heap-growing-percent=100');
  });

  it("says when the run's open loop had a first warm-up on each target before its rounds", () => {
    const warmed = run({ dc: 0.7, added: [1] });
    warmed.open_loop = { ...warmed.open_loop!, first_warmup_s: 20 };
    expect(runRow('f', warmed).ranWith).toBe('host heap, open loop after 20 s first');
    expect(runRow('f', run({ dc: 0.7, added: [1] })).ranWith).toBe('host heap');
  });

  it('names the Node of a run made on another major than most runs were', () => {
    const dir = mkdtempSync(join(tmpdir(), 'results-table-'));
    const on = (node: string, date: string): RecordedRun => {
      const r = run({ dc: 0.7, added: [1], date });
      return { ...r, machine: { ...r.machine, node } };
    };
    writeJson(dir, 'gateway-2026-11-26T0700.json', on('v20.20.2', '2026-11-26T07:00:00Z'));
    writeJson(dir, 'gateway-2026-11-26T0800.json', on('v26.12.1', '2026-11-26T08:00:00Z'));
    writeJson(dir, 'gateway-2026-11-26T0900.json', on('v20.19.0', '2026-11-26T09:00:00Z'));
    expect(recordedRuns(dir).map((r) => r.ranWith)).toEqual([
      'host heap',
      'host heap, Node 26.12.1',
      'host heap',
    ]);
    expect(runRow('f', on('v26.12.1', '2026-11-26T08:00:00Z')).ranWith).toBe('host heap');
  });

  it('lists only full runs with an open loop, oldest first, and counts those meeting both targets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'results-table-'));
    const write = (name: string, body: unknown): void => writeJson(dir, name, body);
    write('gateway-2026-11-26T0700.json', run({ dc: 0.8, added: [2], date: '2026-11-26T07:00:00Z' }));
    write('gateway-2026-11-26.json', run({ dc: 0.6, added: [9], date: '2026-11-26T05:00:00Z' }));
    write('gateway-2026-11-25-run2.json', { ...run({ dc: 0.8, added: [1] }), open_loop: null });
    for (const other of [
      'gateway-ab-2026-11-26.json',
      'gateway-soak-2026-11-26.json',
      'gateway-latest.json',
      'gateway-partial-2026-11-26.json',
    ])
      write(other, run({ dc: 0.8, added: [1] }));
    const rows = recordedRuns(dir);
    expect(rows.map((r) => r.file)).toEqual(['gateway-2026-11-26.json', 'gateway-2026-11-26T0700.json']);
    expect(recordedRuns(dir, '2026-11-26T06').map((r) => r.file)).toEqual(['gateway-2026-11-26T0700.json']);
    const md = runsMarkdown(rows);
    expect(md).toContain(
      '| 2026-11-26 07:00 | AMD EPYC | — | host heap | 15000 | 0.8 (0.78–0.83) | 4000 | 2 (1/1) | 2.1 | yes |',
    );
    expect(md).toContain('Both targets (d/c ≥ 0.7, p99 added ≤ 5 ms) in 1 of 2 runs.');
  });

  it("names each run's host from its own record, else from host-kinds.json, and sums the runs by host", () => {
    const dir = mkdtempSync(join(tmpdir(), 'results-table-'));
    const at = (hour: string, over: Parameters<typeof run>[0]): RecordedRun =>
      run({ ...over, date: `2026-11-26T${hour}:00:00Z` });
    const own = at('07', { dc: 0.75, added: [2] });
    own.machine = { cpu_model: 'AMD EPYC', cpu_kind: 'AMD family 26 model 2' };
    writeJson(dir, 'gateway-2026-11-26T0700.json', own);
    writeJson(dir, 'gateway-2026-11-26T0800.json', at('08', { dc: 0.65, added: [3] }));
    writeJson(dir, 'gateway-2026-11-26T0900.json', at('09', { dc: 0.72, added: [8] }));
    writeJson(dir, 'gateway-2026-11-26T1000.json', at('10', { dc: 0.6, added: [9] }));
    writeJson(dir, 'host-kinds.json', {
      kinds: {
        'gateway-2026-11-26T0700.json': 'Intel family 6 model 207',
        'gateway-2026-11-26T0800.json': 'AMD family 26 model 2',
        'gateway-2026-11-26T0900.json': 'AMD family 26 model 2',
      },
    });
    const rows = recordedRuns(dir);
    expect(rows.map((r) => r.kind)).toEqual([
      'AMD family 26 model 2',
      'AMD family 26 model 2',
      'AMD family 26 model 2',
      'AMD EPYC, family and model not recorded',
    ]);
    expect(runsMarkdown(rows)).toContain('| 2026-11-26 07:00 | AMD family 26 model 2 | — |');
    expect(runsMarkdown(rows)).toContain('| 2026-11-26 10:00 | AMD EPYC | — |');
    expect(hostsMarkdown(rows).split('\n').slice(2)).toEqual([
      '| AMD family 26 model 2 | 3 | 15,000 | 0.65–0.75 | 2 (67 %) | 2 (67 %) | 1 (33 %) |',
      '| AMD EPYC, family and model not recorded | 1 | 15,000 | 0.6 | 0 (0 %) | 0 (0 %) | 0 (0 %) |',
      '| **all** | 4 | 15,000 | 0.6–0.75 | 2 (50 %) | 2 (50 %) | 1 (25 %) |',
    ]);
  });

  it('sums a host missing only its model after every fully named host, yet under its own name', () => {
    const at = (file: string, kind: string): RunRow => ({
      ...runRow(file, run({ dc: 0.75, added: [2] })),
      kind,
    });
    const rows = [
      at('a', 'AMD family 25, model not recorded'),
      at('b', 'AMD family 25, model not recorded'),
      at('c', 'Intel family 6 model 167'),
    ];
    expect(
      hostsMarkdown(rows)
        .split('\n')
        .slice(2, 4)
        .map((l) => l.split(' | ')[0]),
    ).toEqual(['| Intel family 6 model 167', '| AMD family 25, model not recorded']);
    expect(runsMarkdown(rows)).toContain('| AMD family 25, model not recorded |');
  });

  it('sums the runs by the Node major they ran on, most runs first, a run without its Node apart', () => {
    const on = (node: string | undefined, dc: number, added: number): RecordedRun => ({
      ...run({ dc, added: [added] }),
      machine: { cpu_model: 'AMD EPYC', ...(node ? { node } : {}) },
    });
    const rows = [
      runRow('a', on('v26.12.1', 0.75, 3)),
      runRow('b', on('v20.20.2', 0.65, 2)),
      runRow('c', on('v20.19.0', 0.72, 9)),
      runRow('d', on(undefined, 0.8, 1)),
    ];
    expect(rows.map((r) => r.node)).toEqual(['Node 26', 'Node 20', 'Node 20', 'Node not recorded']);
    const lines = nodesMarkdown(rows).split('\n');
    expect(lines[0]).toMatch(/^\| Node \| runs \|/);
    expect(lines.slice(2)).toEqual([
      '| Node 20 | 2 | 15,000 | 0.65–0.72 | 1 (50 %) | 1 (50 %) | 0 (0 %) |',
      '| Node 26 | 1 | 15,000 | 0.75 | 1 (100 %) | 1 (100 %) | 1 (100 %) |',
      '| Node not recorded | 1 | 15,000 | 0.8 | 1 (100 %) | 1 (100 %) | 1 (100 %) |',
      '| **all** | 4 | 15,000 | 0.65–0.8 | 3 (75 %) | 3 (75 %) | 2 (50 %) |',
    ]);
  });

  it('names in host-kinds.json only runs on record, each by vendor, family and model as the bench writes them', () => {
    const dir = join(__dirname, '..', '..', 'bench', 'results');
    const { kinds } = JSON.parse(readFileSync(join(dir, 'host-kinds.json'), 'utf8')) as {
      kinds: Record<string, string>;
    };
    expect(Object.keys(kinds).length).toBeGreaterThan(0);
    for (const [file, kind] of Object.entries(kinds)) {
      expect([file, existsSync(join(dir, file))]).toEqual([file, true]);
      expect(kind).toMatch(/^(AMD|Intel) family \d+(?: model \d+|, model not recorded)$/);
    }
  });
});
