// npm run bench:search [-- <documents>]
// Loads generated legal documents (default 500,000, no full text) into schema bench_search of the
// PostgreSQL at TEST_DATABASE_URL or DATABASE_URL (reused when already loaded), then times 1-3-word
// keyword queries, with and without diacritics, through the kit's list code: first page + exact
// total, sort=relevance as the gateway sends by default. Writes bench/results/search.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { openPgDb } from '../src/db/pg-db';
import { makeLegalDocument } from '../src/data/legal-generator';
import { insertRows, listRecords } from '../src/upstream-kit';
import type { DatasetSpec } from '../src/upstream-kit';
import { legalDocuments } from '../src/upstreams/legal/legal-datasets';
import { LEGAL_DOCUMENT_COLUMNS, legalDocumentValues } from '../src/upstreams/legal/legal-rows';
import { insertLegalCatalogs, legalAgencies } from '../src/upstreams/legal/legal-seed';
import { projectRoot } from '../src/util/project-root';

const URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGET = Number(process.argv[2] ?? 500_000);
const ROUNDS = 5;
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
  await insertLegalCatalogs(db);
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

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function run(
  db: Db,
  spec: DatasetSpec,
): Promise<{ p50: number; p95: number; p99: number; max: number; queries: Timing[] }> {
  const all: number[] = [];
  const queries: Timing[] = [];
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
  all.sort((a, b) => a - b);
  return {
    p50: round(pct(all, 50)),
    p95: round(pct(all, 95)),
    p99: round(pct(all, 99)),
    max: round(all[all.length - 1]!),
    queries,
  };
}

const round = (n: number): number => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const db = await openPgDb({ connectionString: URL, schema: 'bench_search', max: 4 });
  try {
    const documents = await load(db);
    const prefix = await run(db, legalDocuments);
    const trigram = await run(db, trigramVariant);
    const version = (await db.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!
      .v;
    const result = {
      date: new Date().toISOString(),
      postgres: version,
      documents,
      rounds_per_query: ROUNDS,
      query: 'first page (per_page 20), sort=relevance, database=vbqppl (default), with exact total',
      target_p95_ms: 50,
      word_prefix_tsvector: prefix,
      substring_trigram: trigram,
    };
    mkdirSync(join(projectRoot(), 'bench', 'results'), { recursive: true });
    writeFileSync(
      join(projectRoot(), 'bench', 'results', 'search.json'),
      JSON.stringify(result, null, 2) + '\n',
    );
    console.log(`\n${documents} documents, PostgreSQL ${version}, ${ROUNDS} timed runs per query (ms)`);
    console.log(
      'query'.padEnd(26) + 'total'.padStart(9) + 'prefix p50'.padStart(12) + 'trigram p50'.padStart(13),
    );
    prefix.queries.forEach((t, i) => {
      const g = trigram.queries[i]!;
      console.log(
        t.q.padEnd(26) +
          String(t.total).padStart(9) +
          String(t.p50).padStart(12) +
          `${g.p50} (${g.total})`.padStart(13),
      );
    });
    for (const [name, r] of [
      ['word prefix (tsvector, used)', prefix],
      ['substring (trigram)', trigram],
    ] as const) {
      console.log(`${name.padEnd(30)} p50 ${r.p50}  p95 ${r.p95}  p99 ${r.p99}  max ${r.max}`);
    }
  } finally {
    await db.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
