import request from 'supertest';
import { legalUpstream } from '../../src/upstreams/legal/legal-upstream';
import { TEST_DATABASES } from '../support/databases';
import { fold, startUpstream, storedSearchMismatches } from './upstream-harness';
import type { Harness } from './upstream-harness';

const LIST_FIELDS = [
  'id',
  'code',
  'name',
  'database',
  'type',
  'field',
  'agency',
  'status',
  'issued_date',
  'effective_date',
  'expired_date',
  'source_url',
];
const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'signer',
  'content_html',
  'content_en_html',
  'replaced_by',
  'replaces',
];

describe.each(TEST_DATABASES)('legal upstream on $name', (tdb) => {
  let h: Harness;
  const get = (path: string) => request(h.app).get(path);
  const one = async <T>(sql: string, params: unknown[] = []): Promise<T> =>
    (await h.db.query<T>(sql, params)).rows[0]!;

  beforeAll(async () => {
    h = await startUpstream(tdb, legalUpstream);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });

  describe('keyword search', () => {
    it('returns documents whose names contain every word, ignoring diacritics and case', async () => {
      const r = await get('/legal-documents?q=luat%20dat%20dai&per_page=100');
      expect(r.status).toBe(200);
      expect(r.body.total).toBeGreaterThan(0);
      for (const d of r.body.data) for (const w of ['luat', 'dat', 'dai']) expect(fold(d.name)).toContain(w);
    });

    it('gives the same result with diacritics, without them and in upper case', async () => {
      const a = await get('/legal-documents?q=' + encodeURIComponent('Luật Đất đai'));
      const b = await get('/legal-documents?q=luat+dat+dai');
      const c = await get('/legal-documents?q=' + encodeURIComponent('LUẬT ĐẤT ĐAI'));
      expect(a.body.total).toBeGreaterThan(0);
      expect(b.body.total).toBe(a.body.total);
      expect(c.body.total).toBe(a.body.total);
      expect(b.body.data).toEqual(a.body.data);
    });

    it('matches đ with d', async () => {
      const r = await get('/legal-documents?q=dinh&per_page=5');
      expect(r.body.total).toBeGreaterThan(0);
      expect(r.body.data.some((d: { name: string }) => /định/i.test(d.name))).toBe(true);
    });

    it('finds document numbers by a part of the code when search_in is code', async () => {
      const doc = await one<{ code: string; id: string }>(
        "SELECT id, code FROM legal_documents WHERE database = 'vbqppl' AND code LIKE '%/NĐ-CP' LIMIT 1",
      );
      const part = doc.code.split('/').slice(0, 2).join('/');
      const r = await get(`/legal-documents?search_in=code&q=${encodeURIComponent(part)}&per_page=1000`);
      expect(r.body.data.map((d: { id: string }) => d.id)).toContain(doc.id);
      for (const d of r.body.data) expect(d.code).toContain(part);
      const nd = await get('/legal-documents?search_in=code&q=nd-cp&per_page=1000');
      expect(nd.body.total).toBeGreaterThan(0);
      for (const d of nd.body.data) expect(d.code).toContain('NĐ-CP');
    });

    it('ranks the document number itself first when search_in is code, then numbers starting with it', async () => {
      // A number that a longer one holds: 7/NQ-CP inside 17/NQ-CP.
      const pair = await one<{ code: string; longer: string }>(
        `SELECT a.code, b.id AS longer FROM legal_documents a JOIN legal_documents b
           ON b.code <> a.code AND position(a.code IN b.code) > 0
         WHERE a.database = 'vbqppl' AND b.database = 'vbqppl' ORDER BY length(a.code), a.code LIMIT 1`,
      );
      const r = await get(`/legal-documents?search_in=code&q=${encodeURIComponent(pair.code)}&per_page=1000`);
      const rows = r.body.data as { id: string; code: string }[];
      expect(rows.map((d) => d.id)).toContain(pair.longer);
      const rank = (code: string): number => (code === pair.code ? 0 : code.startsWith(pair.code) ? 1 : 2);
      const ranks = rows.map((d) => rank(d.code));
      expect(ranks[0]).toBe(0);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      const lengths = rows.filter((d) => rank(d.code) === 2).map((d) => d.code.length);
      expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    });

    it('treats LIKE wildcards in keywords literally', async () => {
      for (const qs of ['q=%25', 'q=_', 'search_in=code&q=%25', 'search_in=code&q=_']) {
        const r = await get(`/legal-documents?${qs}`);
        expect(r.status).toBe(200);
        expect(r.body.total).toBe(0);
      }
    });

    it('never runs keywords as SQL', async () => {
      const r = await get('/legal-documents?q=' + encodeURIComponent("'; DROP TABLE legal_documents; --"));
      expect(r.status).toBe(200);
      expect((await get('/legal-documents/_stats')).body.total).toBeGreaterThan(0);
    });
  });

  describe('filters', () => {
    it('defaults to the vbqppl database and filters each of the five databases', async () => {
      const dflt = await get('/legal-documents?issued_from=1990-01-01&per_page=1000');
      expect(new Set(dflt.body.data.map((d: { database: string }) => d.database))).toEqual(
        new Set(['vbqppl']),
      );
      for (const db of ['vbqppl', 'ban-an', 'dieu-uoc', 'tieu-chuan', 'cong-van']) {
        const r = await get(`/legal-documents?issued_from=1990-01-01&database=${db}&per_page=50`);
        expect(r.body.total).toBeGreaterThan(0);
        for (const d of r.body.data) expect(d.database).toBe(db);
      }
    });

    it.each(['type', 'field', 'agency', 'status'])('filters by %s_id', async (kind) => {
      const row = await one<{ v: number; n: number }>(
        `SELECT ${kind}_id AS v, count(*)::int AS n FROM legal_documents WHERE database = 'vbqppl' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`,
      );
      const r = await get(`/legal-documents?${kind}_id=${row.v}&per_page=1000`);
      expect(r.body.total).toBe(row.n);
      for (const d of r.body.data) expect(d[kind].id).toBe(row.v);
    });

    it('filters by issue date with inclusive bounds', async () => {
      const { day } = await one<{ day: string }>(
        "SELECT to_char(issued_date, 'YYYY-MM-DD') AS day FROM legal_documents WHERE database = 'vbqppl' LIMIT 1",
      );
      const exact = await get(`/legal-documents?issued_from=${day}&issued_to=${day}`);
      expect(exact.body.total).toBeGreaterThan(0);
      for (const d of exact.body.data) expect(d.issued_date).toBe(day);
      const from = await get(`/legal-documents?issued_from=2020-01-01&per_page=1000`);
      for (const d of from.body.data) expect(d.issued_date >= '2020-01-01').toBe(true);
      const to = await get(`/legal-documents?issued_to=2005-12-31&per_page=1000`);
      for (const d of to.body.data) expect(d.issued_date <= '2005-12-31').toBe(true);
    });

    it('combines filters with AND', async () => {
      const pair = await one<{ t: number; s: number; n: number }>(
        `SELECT type_id AS t, status_id AS s, count(*)::int AS n FROM legal_documents WHERE database = 'vbqppl' GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 1`,
      );
      const byType = await get(`/legal-documents?type_id=${pair.t}&per_page=1`);
      const r = await get(`/legal-documents?type_id=${pair.t}&status_id=${pair.s}&per_page=1000`);
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(pair.n);
      // Fewer than the type alone, or the status filter was not applied.
      expect(r.body.total).toBeLessThan(byType.body.total);
      for (const d of r.body.data) expect([d.type.id, d.status.id]).toEqual([pair.t, pair.s]);
    });
  });

  describe('sorting and pagination', () => {
    const dates = (body: { data: { issued_date: string }[] }): string[] =>
      body.data.map((d) => d.issued_date);

    it('sorts newest and oldest first, and falls back to newest for relevance without keywords', async () => {
      const newest = await get('/legal-documents?issued_from=1990-01-01&sort=newest&per_page=50');
      expect(dates(newest.body)).toEqual([...dates(newest.body)].sort().reverse());
      const oldest = await get('/legal-documents?issued_from=1990-01-01&sort=oldest&per_page=50');
      expect(dates(oldest.body)).toEqual([...dates(oldest.body)].sort());
      const rel = await get('/legal-documents?issued_from=1990-01-01&sort=relevance&per_page=50');
      expect(rel.body.data).toEqual(newest.body.data);
    });

    it('ranks shorter names first for relevance, the closest matches of all the words', async () => {
      const r = await get('/legal-documents?q=luat&sort=relevance&per_page=1000');
      const lengths = r.body.data.map((d: { name: string }) => d.name.length);
      expect(r.body.total).toBeGreaterThan(1);
      expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    });

    it('matches each keyword as the start of a word', async () => {
      const r = await get('/legal-documents?q=hanh+chinh&per_page=1000');
      expect(r.body.total).toBeGreaterThan(0);
      for (const d of r.body.data)
        for (const w of ['hanh', 'chinh']) expect(fold(d.name)).toMatch(new RegExp(`\\b${w}`));
      const partial = await get('/legal-documents?q=nghi+din');
      expect(partial.body.total).toBe((await get('/legal-documents?q=nghi+dinh')).body.total);
    });

    it('finds a name by words written with "/", "-" or "." in it, its whole title included', async () => {
      const judgments = await get('/legal-documents?database=ban-an&q=ban+an&per_page=1000');
      const doc = (judgments.body.data as { id: string; name: string }[]).find((d) =>
        /\d+\/\d+\/[A-ZĐ]+-[A-Z]+/.test(d.name),
      )!;
      expect(doc).toBeDefined();
      const q = (text: string) =>
        get(`/legal-documents?database=ban-an&per_page=1000&q=${encodeURIComponent(text)}`);
      const ids = async (text: string) => ((await q(text)).body.data as { id: string }[]).map((d) => d.id);
      expect(await ids(doc.name)).toContain(doc.id);
      const number = /\d+\/(\d+)\/([A-ZĐ]+)-([A-Z]+)/.exec(doc.name)!;
      for (const part of [number[0], number[1]!, `${number[2]}-${number[3]}`, number[3]!])
        expect([part, await ids(part)]).toEqual([part, expect.arrayContaining([doc.id])]);
    });

    it('pages without overlap and keeps the total', async () => {
      const p1 = await get('/legal-documents?issued_from=1990-01-01&sort=newest&per_page=5&page=1');
      const p2 = await get('/legal-documents?issued_from=1990-01-01&sort=newest&per_page=5&page=2');
      const all = await get('/legal-documents?issued_from=1990-01-01&sort=newest&per_page=10');
      expect(p1.body.data).toHaveLength(5);
      expect(p2.body.total).toBe(p1.body.total);
      expect([...p1.body.data, ...p2.body.data]).toEqual(all.body.data);
    });

    it('returns an empty page past the end with the total', async () => {
      const r = await get('/legal-documents?issued_from=1990-01-01&page=9999');
      expect(r.body.data).toEqual([]);
      expect(r.body.total).toBeGreaterThan(0);
    });

    it('clamps per_page to 1..1000 and page to at least 1', async () => {
      const zero = await get('/legal-documents?issued_from=1990-01-01&per_page=0&page=0');
      expect(zero.body.data).toHaveLength(1);
      const huge = await get('/legal-documents?issued_from=1990-01-01&per_page=100000');
      expect(huge.body.data).toHaveLength(Math.min(huge.body.total, 1000));
    });
  });

  describe('records', () => {
    it('returns exactly the list fields in lists and adds the detail fields in the detail', async () => {
      const list = await get('/legal-documents?type_id=6&per_page=3');
      expect(Object.keys(list.body.data[0]).sort()).toEqual([...LIST_FIELDS].sort());
      const d = await get(`/legal-documents/${list.body.data[0].id}`);
      expect(d.status).toBe(200);
      expect(Object.keys(d.body.data).sort()).toEqual([...DETAIL_FIELDS].sort());
      expect(d.body.data.id).toMatch(/^vb_/);
      expect(d.body.data.status).toEqual({ id: expect.any(Number), name: expect.any(String) });
      expect(d.body.data.content_html).toMatch(/Chương I[\s\S]*Điều 1\./);
    });

    it('gives null for an absent English text and expiry date', async () => {
      const { id } = await one<{ id: string }>(
        'SELECT id FROM legal_documents WHERE content_en_html IS NULL AND expired_date IS NULL LIMIT 1',
      );
      const d = await get(`/legal-documents/${id}`);
      expect(d.body.data.content_en_html).toBeNull();
      expect(d.body.data.expired_date).toBeNull();
      const en = await one<{ id: string }>(
        'SELECT id FROM legal_documents WHERE content_en_html IS NOT NULL LIMIT 1',
      );
      expect((await get(`/legal-documents/${en.id}`)).body.data.content_en_html).toMatch(/Article 1/);
    });

    it('lists replacements in the detail and all four directions in relations', async () => {
      const rel = await one<{ from_id: string; to_id: string }>(
        "SELECT from_id, to_id FROM legal_document_relations WHERE kind = 'replaces' LIMIT 1",
      );
      const newer = await get(`/legal-documents/${rel.from_id}`);
      expect(newer.body.data.replaces.map((x: { id: string }) => x.id)).toContain(rel.to_id);
      expect(Object.keys(newer.body.data.replaces[0]).sort()).toEqual(['code', 'id', 'issued_date', 'name']);
      const older = await get(`/legal-documents/${rel.to_id}`);
      expect(older.body.data.replaced_by.map((x: { id: string }) => x.id)).toContain(rel.from_id);
      expect(older.body.data.status.id).toBe(2);
      const r = await get(`/legal-documents/${rel.from_id}/relations`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body.data).sort()).toEqual([
        'cited_by',
        'cited_by_total',
        'cites',
        'cites_total',
        'replaced_by',
        'replaced_by_total',
        'replaces',
        'replaces_total',
      ]);
      expect(r.body.data.replaces_total).toBe(r.body.data.replaces.length);
      const cite = await one<{ from_id: string; to_id: string }>(
        "SELECT from_id, to_id FROM legal_document_relations WHERE kind = 'cites' LIMIT 1",
      );
      expect(
        (await get(`/legal-documents/${cite.from_id}/relations`)).body.data.cites.map(
          (x: { id: string }) => x.id,
        ),
      ).toContain(cite.to_id);
      expect(
        (await get(`/legal-documents/${cite.to_id}/relations`)).body.data.cited_by.map(
          (x: { id: string }) => x.id,
        ),
      ).toContain(cite.from_id);
    });

    it('lists the newest 500 documents of each direction, in the order of sort=newest, counts them all, and bounds the detail alike', async () => {
      const target = await one<{ id: string }>('SELECT id FROM legal_documents ORDER BY id LIMIT 1');
      // The sample holds 300 documents: 250 copies, each issued the day its original was (ties
      // broken by id), make more than are listed.
      const copies = await h.db.query<{ id: string }>(
        `INSERT INTO legal_documents (id, code, name, database, type_id, field_id, agency_id, status_id, issued_date)
           SELECT id || 'copy', code, name, database, type_id, field_id, agency_id, status_id, issued_date
             FROM legal_documents ORDER BY id LIMIT 250 RETURNING id`,
      );
      // Every other document cites the target, and the target replaces every other one.
      const added = await h.db.query<{ from_id: string; kind: string; to_id: string }>(
        `INSERT INTO legal_document_relations (from_id, kind, to_id)
           SELECT id, 'cites', $1::text FROM legal_documents WHERE id <> $1
           UNION ALL SELECT $1::text, 'replaces', id FROM legal_documents WHERE id <> $1
           ON CONFLICT DO NOTHING RETURNING from_id, kind, to_id`,
        [target.id],
      );
      try {
        const newest = async (self: string, other: string, kind: string): Promise<string[]> =>
          (
            await h.db.query<{ id: string }>(
              `SELECT o.id FROM legal_document_relations r JOIN legal_documents o ON o.id = r.${other}
                WHERE r.${self} = $1 AND r.kind = $2 ORDER BY o.issued_date DESC, o.id DESC`,
              [target.id, kind],
            )
          ).rows.map((x) => x.id);
        const ids = (list: { id: string }[]): string[] => list.map((x) => x.id);
        const r = await get(`/legal-documents/${target.id}/relations`);
        expect(r.status).toBe(200);
        for (const [name, self, other, kind] of [
          ['replaces', 'from_id', 'to_id', 'replaces'],
          ['replaced_by', 'to_id', 'from_id', 'replaces'],
          ['cites', 'from_id', 'to_id', 'cites'],
          ['cited_by', 'to_id', 'from_id', 'cites'],
        ] as const) {
          const all = await newest(self, other, kind);
          expect([name, r.body.data[`${name}_total`], ids(r.body.data[name])]).toEqual([
            name,
            all.length,
            all.slice(0, 500),
          ]);
        }
        expect(r.body.data.cited_by_total).toBeGreaterThan(500);
        expect(r.body.data.replaces_total).toBeGreaterThan(500);
        const detail = await get(`/legal-documents/${target.id}`);
        expect(ids(detail.body.data.replaces)).toEqual(ids(r.body.data.replaces));
      } finally {
        await h.db.query(
          `DELETE FROM legal_document_relations
            WHERE (from_id, kind, to_id) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))`,
          [added.rows.map((x) => x.from_id), added.rows.map((x) => x.kind), added.rows.map((x) => x.to_id)],
        );
        await h.db.query('DELETE FROM legal_documents WHERE id = ANY($1)', [copies.rows.map((x) => x.id)]);
      }
    });

    it('reports the dataset size on _stats', async () => {
      const { n } = await one<{ n: number }>('SELECT count(*)::int AS n FROM legal_documents');
      expect((await get('/legal-documents/_stats')).body).toEqual({ total: n });
    });

    it('answers /healthz', async () => {
      expect((await get('/healthz')).status).toBe(200);
    });
  });

  describe('catalogs', () => {
    it('lists exactly the six validity statuses with 1 in effect', async () => {
      const r = await get('/catalogs/statuses');
      expect(r.body.total).toBe(6);
      expect(r.body.data[0]).toMatchObject({ id: 1, name: 'Còn hiệu lực' });
    });

    it('lists the five databases with their values as ids', async () => {
      const r = await get('/catalogs/databases');
      expect(r.body.data.map((d: { id: string }) => d.id)).toEqual([
        'vbqppl',
        'ban-an',
        'dieu-uoc',
        'tieu-chuan',
        'cong-van',
      ]);
    });

    it('lists document types and law fields with integer ids', async () => {
      for (const p of ['document-types', 'law-fields']) {
        const r = await get(`/catalogs/${p}?per_page=1000`);
        expect(r.body.total).toBeGreaterThan(5);
        for (const it of r.body.data)
          expect(it).toMatchObject({ id: expect.any(Number), name: expect.any(String) });
      }
    });

    it('searches agencies by name without diacritics and paginates catalogs', async () => {
      const r = await get('/catalogs/agencies?q=bo+tai+chinh');
      expect(r.body.data.map((a: { name: string }) => a.name)).toEqual(['Bộ Tài chính']);
      // By its short name too; and "ha" is no longer inside every "Tư pháp" or "Văn hóa".
      const btc = await get('/catalogs/agencies?q=BTC');
      expect(btc.body.data.map((a: { name: string }) => a.name)).toContain('Bộ Tài chính');
      const all = (await get('/catalogs/agencies?per_page=1')).body.total as number;
      expect((await get('/catalogs/agencies?q=h%C3%A0')).body.total).toBeLessThan(all / 2);
      // As people write an authority: its abbreviation with the place from the full name.
      const ubnd = await get(`/catalogs/agencies?q=${encodeURIComponent('UBND Hà Nội')}`);
      expect(ubnd.body.data.map((a: { name: string }) => a.name)).toEqual([
        'Ủy ban nhân dân Thành phố Hà Nội',
      ]);
      const page = await get('/catalogs/agencies?per_page=2&page=2');
      expect(page.body.data).toHaveLength(2);
      expect(page.body.data[0].id).toBe(3);
      expect(page.body.total).toBeGreaterThan(30);
    });

    it('finds an agency by a word written with an apostrophe, typed with it or without it', async () => {
      // The sample agencies hold none; an imported list names district authorities (Đắk R'Lấp).
      try {
        await h.db.query(
          `INSERT INTO legal_agencies (id, name, short_name, level)
           VALUES (99991, 'Ủy ban nhân dân huyện Đắk R’Lấp', 'UBND huyện Đắk R’Lấp', 'other')`,
        );
        for (const q of ['rlap', "r'lap", 'UBND Đắk R’Lấp', 'dak rla'])
          expect([
            q,
            (await get(`/catalogs/agencies?q=${encodeURIComponent(q)}`)).body.data.map(
              (a: { id: number }) => a.id,
            ),
          ]).toEqual([q, [99991]]);
        expect(await storedSearchMismatches(h.db, 'legal_agencies', ['name', 'short_name'])).toBe(0);
      } finally {
        await h.db.query('DELETE FROM legal_agencies WHERE id = 99991');
      }
    });
  });

  describe('errors', () => {
    it('answers 422 when no filter or keyword is given', async () => {
      for (const p of ['/legal-documents', '/legal-documents?database=ban-an', '/legal-documents?q=%20%20']) {
        const r = await get(p);
        expect(r.status).toBe(422);
        expect(r.body.code).toBe('invalid_request');
        expect(r.body.message).toEqual(expect.any(String));
      }
    });

    it.each([
      'type_id=abc',
      'field_id=1.5',
      'agency_id=0',
      'status_id=99999999999',
      'issued_from=2024-02-30',
      'issued_to=2024-1-5',
      'q=luat&database=luat',
      'q=luat&sort=popular',
      'q=luat&search_in=content',
      'q=luat&page=two',
      'q=a&q=b',
    ])('answers 422 invalid_request for %s', async (qs) => {
      const r = await get(`/legal-documents?${qs}`);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('invalid_request');
    });

    it('answers 422 for keywords longer than 200 characters', async () => {
      expect((await get(`/legal-documents?q=${'a'.repeat(201)}`)).status).toBe(422);
    });

    it.each([
      '/legal-documents/vb_doesnotexist',
      '/legal-documents/tc_abc',
      '/legal-documents/vb_doesnotexist/relations',
    ])('answers 404 not_found for %s', async (p) => {
      const r = await get(p);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    });

    it.each(['/catalogs/statuses/1', '/nothing-here'])(
      'answers 404 unknown_endpoint for %s, a path it does not serve',
      async (p) => {
        const r = await get(p);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('unknown_endpoint');
      },
    );

    it('answers 404 for an unknown sub-resource of a known document', async () => {
      const { id } = await one<{ id: string }>('SELECT id FROM legal_documents LIMIT 1');
      expect((await get(`/legal-documents/${id}/history`)).status).toBe(404);
    });
  });
});
