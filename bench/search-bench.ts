// npm run bench:search [-- <documents>]
// Loads generated legal documents (default 500,000, no full text) into schema bench_search of the
// PostgreSQL at TEST_DATABASE_URL or DATABASE_URL (reused when already loaded), then times 1-3-word
// keyword queries, with and without diacritics, through the kit's list code: first page + exact
// total, sort=relevance as the gateway sends by default. PASSES (env, default 3) timed passes
// over all queries, each with the load average it ran under: the machine is shared, so the
// distribution over passes is reported, plus buffer counts (EXPLAIN ANALYZE BUFFERS) of the count
// and page statements, which load does not change. Writes bench/results/search.json.
import { loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../src/db/db';
import { vacuumUnvisited } from '../src/db/analyze';
import { migrate } from '../src/db/migrate';
import { openPgDb } from '../src/db/pg-db';
import { makeLegalDocument } from '../src/data/legal-generator';
import { buildListQuery, insertRows, listRecords } from '../src/upstream-kit';
import { selectList } from '../src/upstream-kit/build-query';
import type { DatasetSpec } from '../src/upstream-kit';
import { legalDocuments } from '../src/upstreams/legal/legal-datasets';
import { LEGAL_DOCUMENT_COLUMNS, legalDocumentValues } from '../src/upstreams/legal/legal-rows';
import { insertLegalCatalogs, legalAgencies } from '../src/upstreams/legal/legal-seed';
import { projectRoot } from '../src/util/project-root';

const URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGET = Number(process.argv[2] ?? 500_000);
const ROUNDS = 5;
const PASSES = Number(process.env.PASSES ?? 3);
const QUERIES = [
  'luật',
  'luat',
  'nghị định',
  'nghi dinh',
  'đất đai',
  'dat dai',
  'thuế',
  'thue',
  'luật đất đai',
  'luat dat dai',
  'bảo hiểm xã hội',
  'bao hiem xa hoi',
  'xử phạt vi phạm',
  'xu phat vi pham',
  'giao dịch',
  'giao dich',
  'hợp đồng',
  'hop dong',
  'chứng khoán',
  'chung khoan',
  'thông tư hướng dẫn',
  'thong tu huong dan',
  'đ',
  'tai nguyen nuoc',
  'hiệp định',
  'nhà ở xã hội',
  'khen thuong',
  'ly hon',
  'biến đổi khí hậu',
  'dau tu cong',
];

/** The same dataset searched by substring trigrams instead of word prefixes, for comparison. */
const trigramVariant: DatasetSpec = {
  ...legalDocuments,
  search: {
    ...legalDocuments.search!,
    modes: { ...legalDocuments.search!.modes, name: { columns: ['d.name'], match: 'words' } },
  },
};

async function load(db: Db): Promise<number> {
  await migrate(db, 'legal');
  // As an upstream's start does: a migration that rewrote the table leaves no page all-visible.
  await vacuumUnvisited(db);
  await insertLegalCatalogs(db, true);
  const count = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM legal_documents')).rows[0]!.n);
  let have = await count();
  if (have >= TARGET) return have;
  const ctx = { seed: 1, agencies: legalAgencies(), withContent: false };
  const started = Date.now();
  const batch = 2000;
  // Two writers keep both cores busy; ids are deterministic so a rerun fills the gap.
  const writer = async (from: number, step: number): Promise<void> => {
    for (let n = from; n < TARGET; n += step) {
      const rows = Array.from({ length: Math.min(batch, TARGET - n) }, (_, i) =>
        legalDocumentValues(makeLegalDocument(ctx, n + i)),
      );
      await insertRows(db, 'legal_documents', LEGAL_DOCUMENT_COLUMNS, rows, {
        batchSize: 1000,
        onConflict: 'ON CONFLICT (id) DO NOTHING',
      });
      if ((n / batch) % 25 === 0)
        console.log(`loaded ~${n + batch} documents (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  };
  await Promise.all([writer(have, 2 * batch), writer(have + batch, 2 * batch)]);
  await db.query('VACUUM ANALYZE legal_documents');
  await db.query('VACUUM ANALYZE legal_search_blocks');
  have = await count();
  console.log(`loaded ${have} documents in ${Math.round((Date.now() - started) / 1000)} s`);
  return have;
}

interface Timing {
  q: string;
  total: number;
  p50: number;
  max: number;
}

interface Stats {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

interface Pass extends Stats {
  /** 1-minute load average of the machine (2 cores, shared) before and after the pass. */
  load_1m: [number, number];
  queries: Timing[];
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function stats(all: number[]): Stats {
  const s = [...all].sort((a, b) => a - b);
  return {
    p50: round(pct(s, 50)),
    p95: round(pct(s, 95)),
    p99: round(pct(s, 99)),
    max: round(s[s.length - 1]!),
  };
}

const load1 = (): number => Math.round(loadavg()[0]! * 100) / 100;

async function run(db: Db, spec: DatasetSpec): Promise<Pass & { all: number[] }> {
  const all: number[] = [];
  const queries: Timing[] = [];
  const loadBefore = load1();
  for (const q of QUERIES) {
    const params = { q, sort: 'relevance', page: '1', per_page: '20' };
    let total = (await listRecords(db, spec, params)).total; // warm-up
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = process.hrtime.bigint();
      total = (await listRecords(db, spec, params)).total;
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    all.push(...times);
    queries.push({ q, total, p50: round(pct(times, 50)), max: round(times[times.length - 1]!) });
  }
  return { ...stats(all), load_1m: [loadBefore, load1()], queries, all };
}

interface Buffers {
  q: string;
  /** Shared buffers (hit + read) and execution time of the count and of the first page. */
  count_buffers: number;
  count_ms: number;
  page_buffers: number;
  page_ms: number;
}

interface PlanNode {
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statements listRecords runs, the plan choice included. */
async function explainBuffers(db: Db, spec: DatasetSpec): Promise<Buffers[]> {
  const out: Buffers[] = [];
  for (const q of QUERIES) {
    const b = buildListQuery(spec, { q, sort: 'relevance' });
    const n = b.params.length;
    const inner = `SELECT ${spec.idColumn} FROM ${spec.from} WHERE ${b.where} ORDER BY ${b.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`;
    const pageSql = `SELECT ${selectList(spec.listFields)} FROM ${spec.from} WHERE ${spec.idColumn} IN (${inner}) ORDER BY ${b.orderBy}`;
    const countSql = b.count?.sql ?? `SELECT count(*)::int AS total FROM ${spec.from} WHERE ${b.where}`;
    const countParams = b.count?.params ?? b.params.slice(0, b.whereParamCount);
    const explain = async (sql: string, params: unknown[], setup?: string): Promise<[number, number]> =>
      db.transaction(async (tx) => {
        for (const stmt of setup?.split('; ') ?? []) await tx.query(stmt);
        const r = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
          params,
        );
        const top = r.rows[0]!['QUERY PLAN'][0];
        return [
          (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
          round(top['Execution Time']),
        ];
      });
    const total = Number((await db.query<{ total: string }>(countSql, countParams)).rows[0]!.total);
    const [count_buffers, count_ms] = await explain(countSql, countParams);
    const walk = b.walkIndexFrom === undefined || total >= b.walkIndexFrom;
    const [page_buffers, page_ms] =
      total === 0
        ? [0, 0]
        : await explain(
            pageSql,
            [...b.params, 20, 0],
            walk
              ? 'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off'
              : 'SET LOCAL enable_indexscan = off',
          );
    out.push({ q, count_buffers, count_ms, page_buffers, page_ms });
  }
  return out;
}

const round = (n: number): number => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const db = await openPgDb({ connectionString: URL, schema: 'bench_search', max: 4 });
  try {
    const documents = await load(db);
    const passes: (Pass & { all: number[] })[] = [];
    for (let i = 0; i < PASSES; i++) {
      passes.push(await run(db, legalDocuments));
      const p = passes[passes.length - 1]!;
      console.log(`pass ${i + 1}: p50 ${p.p50}  p95 ${p.p95}  max ${p.max}  load ${p.load_1m.join(' -> ')}`);
    }
    const buffers = await explainBuffers(db, legalDocuments);
    const trigram = process.env.TRIGRAM === '0' ? undefined : await run(db, trigramVariant);
    const version = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!
      .v;
    const strip = ({ all: _all, ...rest }: Pass & { all: number[] }): Pass => rest;
    const result = {
      date: new Date().toISOString(),
      postgres: version,
      documents,
      rounds_per_query: ROUNDS,
      query: 'first page (per_page 20), sort=relevance, database=vbqppl (default), with exact total',
      target_p95_ms: 50,
      word_prefix_bitmap_count: {
        all_passes: stats(passes.flatMap((p) => p.all)),
        passes: passes.map(strip),
        explain_buffers: buffers,
      },
      substring_trigram: trigram ? strip(trigram) : 'not run (TRIGRAM=0)',
    };
    mkdirSync(join(projectRoot(), 'bench', 'results'), { recursive: true });
    writeFileSync(
      join(projectRoot(), 'bench', 'results', 'search.json'),
      JSON.stringify(result, null, 2) + '\n',
    );
    console.log(`\n${documents} documents, PostgreSQL ${version}, ${ROUNDS} timed runs per query (ms)`);
    console.log(
      'query'.padEnd(26) +
        'total'.padStart(9) +
        passes.map((_, i) => `p50 #${i + 1}`.padStart(9)).join('') +
        'count buf'.padStart(11) +
        'page buf'.padStart(10) +
        (trigram ? 'trigram p50'.padStart(18) : ''),
    );
    passes[0]!.queries.forEach((t, i) => {
      const g = trigram?.queries[i];
      console.log(
        t.q.padEnd(26) +
          String(t.total).padStart(9) +
          passes.map((p) => String(p.queries[i]!.p50).padStart(9)).join('') +
          String(buffers[i]!.count_buffers).padStart(11) +
          String(buffers[i]!.page_buffers).padStart(10) +
          (g ? `${g.p50} (${g.total})`.padStart(18) : ''),
      );
    });
    const all = result.word_prefix_bitmap_count.all_passes;
    console.log(
      `word prefix, bitmap count (all passes)  p50 ${all.p50}  p95 ${all.p95}  p99 ${all.p99}  max ${all.max}`,
    );
    if (trigram)
      console.log(`substring (trigram)  p50 ${trigram.p50}  p95 ${trigram.p95}  max ${trigram.max}`);
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
