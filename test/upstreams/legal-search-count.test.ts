import request from 'supertest';
import { generateLegalCorpus } from '../../src/data/legal-corpus';
import { importJsonl } from '../../src/data/import-jsonl';
import { IMPORT_TARGETS } from '../../src/data/import-targets';
import { legalAgencies } from '../../src/upstreams/legal/legal-seed';
import { legalUpstream } from '../../src/upstreams/legal/legal-upstream';
import { wordVectorExpr } from '../../src/upstream-kit';
import { TEST_DATABASES } from '../support/databases';
import { fold, startUpstream } from './upstream-harness';
import type { Harness } from './upstream-harness';

const QUERIES = [
  'luật',
  'luat dat dai',
  'Luật Đất đai',
  'đ',
  'd',
  'nghi din',
  'thong tu huong dan',
  'bao hiem xa hoi',
  'nd-cp',
  '2024',
  'xyzzy',
  'luat luat',
  'd dat',
];

/** What the bitmaps must always equal: the blocks rebuilt from legal_documents. */
const DRIFT = `WITH fresh AS (
  SELECT t.term, d.database AS part, d.search_no >> 10 AS block,
         bit_or(set_bit(B'0'::bit(1024), d.search_no & 1023, 1)) AS bits
  FROM legal_documents d, legal_search_terms(d.name_tsv) t(term) GROUP BY 1, 2, 3)
SELECT count(*)::int AS n FROM (
  (SELECT term, part, block, bits FROM fresh EXCEPT SELECT term, part, block, bits FROM legal_search_blocks)
  UNION ALL
  (SELECT term, part, block, bits FROM legal_search_blocks EXCEPT SELECT term, part, block, bits FROM fresh)) x`;

describe.each(TEST_DATABASES)('legal search totals from word-prefix bitmaps on $name', (tdb) => {
  let h: Harness;
  const get = (path: string) => request(h.app).get(path);
  const rowCount = async (db: string, q: string, extra = 'TRUE'): Promise<number> => {
    const terms = fold(q)
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    const r = await h.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM legal_documents d WHERE d.database = $1 AND ${extra}
         AND d.name_tsv @@ to_tsquery('simple', $2)`,
      [db, terms.map((t) => `${t}:*`).join(' & ')],
    );
    return r.rows[0]!.n;
  };
  const drift = async (): Promise<number> => (await h.db.query<{ n: number }>(DRIFT)).rows[0]!.n;

  beforeAll(async () => {
    h = await startUpstream(tdb, legalUpstream);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });

  it('gives exactly the number of matching rows, in every database', async () => {
    let nonZero = 0;
    for (const db of ['vbqppl', 'ban-an', 'cong-van'])
      for (const q of QUERIES) {
        const r = await get(`/legal-documents?q=${encodeURIComponent(q)}&database=${db}&per_page=1`);
        expect([q, db, r.body.total]).toEqual([q, db, await rowCount(db, q)]);
        if (r.body.total > 0) nonZero++;
      }
    expect(nonZero).toBeGreaterThan(10);
  });

  it('counts rows instead when another filter applies, with the same result', async () => {
    const r = await get('/legal-documents?q=luat&type_id=1&per_page=1');
    expect(r.body.total).toBe(await rowCount('vbqppl', 'luat', 'd.type_id = 1'));
  });

  it('stays in step with inserts, renames, moves between databases and deletes', async () => {
    expect(await drift()).toBe(0);
    const total = async (q: string, db = 'vbqppl'): Promise<number> =>
      (await get(`/legal-documents?q=${encodeURIComponent(q)}&database=${db}&per_page=1`)).body.total;
    const before = await total('zebra quokka');
    expect(before).toBe(0);
    const { id } = (
      await h.db.query<{ id: string }>("SELECT id FROM legal_documents WHERE database = 'vbqppl' LIMIT 1")
    ).rows[0]!;
    await h.db.query("UPDATE legal_documents SET name = 'Nghị quyết về Zebra Quokka' WHERE id = $1", [id]);
    expect(await total('zebra quokka')).toBe(1);
    expect(await total('zeb quo')).toBe(1);
    await h.db.query("UPDATE legal_documents SET database = 'ban-an' WHERE id = $1", [id]);
    expect(await total('zebra quokka')).toBe(0);
    expect(await total('zebra quokka', 'ban-an')).toBe(1);
    await h.db.query('UPDATE legal_documents SET signer = signer WHERE id = $1', [id]);
    expect(await drift()).toBe(0);
    await h.db.query('DELETE FROM legal_document_relations WHERE from_id = $1 OR to_id = $1', [id]);
    await h.db.query('DELETE FROM legal_documents WHERE id = $1', [id]);
    expect(await total('zebra quokka', 'ban-an')).toBe(0);
    expect(await drift()).toBe(0);
    expect(
      (
        await h.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM legal_search_blocks WHERE term = 'zebra'",
        )
      ).rows[0]!.n,
    ).toBe(0);
  });

  it('stays in step with importer upserts, new and rewritten', async () => {
    const docs = generateLegalCorpus(
      { seed: 99, agencies: legalAgencies(), withContent: false },
      20,
    ).documents;
    const file = (names: (n: string) => string): string =>
      docs.map((d) => JSON.stringify({ ...d, name: names(d.name) })).join('\n') + '\n';
    const target = IMPORT_TARGETS['legal-documents']!;
    expect(
      (
        await importJsonl(
          h.db,
          target,
          file((n) => n),
        )
      ).ok,
    ).toBe(true);
    expect(await drift()).toBe(0);
    expect(
      (
        await importJsonl(
          h.db,
          target,
          file((n) => `${n} Wombat`),
        )
      ).ok,
    ).toBe(true);
    expect(await drift()).toBe(0);
    const r = await get('/legal-documents?q=wombat&database=' + docs[0]!.database + '&per_page=1');
    expect(r.body.total).toBe(docs.filter((d) => d.database === docs[0]!.database).length);
  });

  it('finds a word written with an apostrophe by the word typed with it or without it, with exact totals', async () => {
    const names = [
      "Quyết định giao đất cho Ủy ban nhân dân huyện Ea H'leo",
      'Nghị quyết về sắp xếp huyện Đắk R’Lấp', // a typographic apostrophe, as imported text has it
      'Kế hoạch phát triển xã Ea Hleo',
    ];
    const docs = generateLegalCorpus(
      { seed: 98, agencies: legalAgencies(), withContent: false },
      3,
    ).documents.map((d, i) => ({ ...d, database: 'cong-van', name: names[i]! }));
    const body = docs.map((d) => JSON.stringify(d)).join('\n') + '\n';
    try {
      expect((await importJsonl(h.db, IMPORT_TARGETS['legal-documents']!, body)).ok).toBe(true);
      const found = async (q: string): Promise<{ total: number; names: string[] }> => {
        const r = await get(`/legal-documents?q=${encodeURIComponent(q)}&database=cong-van&per_page=10`);
        expect(r.status).toBe(200);
        return { total: r.body.total, names: (r.body.data as { name: string }[]).map((d) => d.name).sort() };
      };
      const both = [names[0]!, names[2]!].sort();
      expect(await found('hleo')).toEqual({ total: 2, names: both });
      expect(await found('ea hle')).toEqual({ total: 2, names: both });
      expect(await found("H'leo")).toEqual({ total: 1, names: [names[0]] });
      for (const q of ['rlap', "r'lap", 'R’Lấp', 'dak rlap', 'đắk rl'])
        expect([q, await found(q)]).toEqual([q, { total: 1, names: [names[1]] }]);
      for (const q of ['hleo', "h'leo", 'rlap', 'r lap'])
        expect(await found(q)).toMatchObject({ total: await rowCount('cong-van', q) });
      expect(await drift()).toBe(0);
      const stale = await h.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM legal_documents
          WHERE name_tsv IS DISTINCT FROM ${wordVectorExpr('name', { joinApostrophes: true })} || array_to_tsvector(ARRAY['~db:' || database])`,
      );
      expect(stale.rows[0]!.n).toBe(0);
    } finally {
      await h.db.query('DELETE FROM legal_documents WHERE id = ANY ($1)', [docs.map((d) => d.id)]);
    }
  });
});
