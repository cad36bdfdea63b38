import request from 'supertest';
import { mofCatalogsUpstream } from '../../src/upstreams/mof-catalogs/mof-catalogs-upstream';
import { TEST_DATABASES } from '../support/databases';
import { hasWordStarting, registry, startUpstream, storedSearchMismatches } from './upstream-harness';
import type { Harness } from './upstream-harness';

const DATASETS = registry('mof-catalogs');

describe.each(TEST_DATABASES)('mof-catalogs upstream on $name', (tdb) => {
  let h: Harness;
  const get = (path: string) => request(h.app).get(path);

  beforeAll(async () => {
    h = await startUpstream(tdb, mofCatalogsUpstream);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });

  describe('business unit types', () => {
    it('holds exactly the 13 kinds, branch and representative office among them', async () => {
      const r = await get('/dmdc-business-unit-types?per_page=100');
      expect(r.body.total).toBe(13);
      const names = r.body.data.map((x: { name: string }) => x.name);
      expect(names).toEqual(
        expect.arrayContaining(['Chi nhánh', 'Văn phòng đại diện', 'Địa điểm kinh doanh']),
      );
    });

    it('returns id, code and name in lists and adds is_active in the detail', async () => {
      const r = await get('/dmdc-business-unit-types?per_page=1');
      expect(Object.keys(r.body.data[0]).sort()).toEqual(['code', 'id', 'name']);
      expect(r.body.data[0].id).toMatch(/^lhdv_/);
      const d = await get(`/dmdc-business-unit-types/${r.body.data[0].id}`);
      expect(Object.keys(d.body.data).sort()).toEqual(['code', 'id', 'is_active', 'name']);
    });

    it('matches q against the name without diacritics and against the code', async () => {
      const byName = await get('/dmdc-business-unit-types?q=chi+nhanh');
      expect(byName.body.total).toBeGreaterThanOrEqual(2);
      for (const x of byName.body.data) expect(x.name.toLowerCase()).toContain('chi nhánh');
      const byCode = await get('/dmdc-business-unit-types?q=02');
      expect(byCode.body.data.map((x: { code: string }) => x.code)).toContain('02');
    });

    it('puts the entry named by q first: "ho" finds Hộ kinh doanh before any name that only holds an h', async () => {
      const r = await get('/dmdc-business-unit-types?q=h%E1%BB%99');
      expect(r.body.data[0].name).toMatch(/^Hộ kinh doanh/);
      for (const x of r.body.data) expect(hasWordStarting(x.name, 'ho')).toBe(true);
    });

    it('ranks by the name as people search it, a q that is a whole code first', async () => {
      const names = async (path: string, q: string) =>
        (await get(`/${path}?q=${encodeURIComponent(q)}`)).body.data.map((x: { name: string }) => x.name);
      expect((await names('dmdc-legal-statuses', 'giải thể'))[0]).toBe('Đã giải thể');
      expect((await names('dmdc-capital-source-types', 'vốn'))[0]).toBe('Vốn tự có');
      const ha = await names('dmdc-document-exchange-identifiers-tt10', 'hà');
      expect(ha.slice(0, 2).sort()).toEqual(['Sở Tài chính Thành phố Hà Nội', 'Sở Tài chính Tỉnh Hà Tĩnh']);
      const ts = await get('/dmdc-academic-titles?q=ts');
      expect(ts.body.data.map((x: { code: string }) => x.code).slice(0, 2)).toEqual(['TS', 'TSKH']);
      // The start of codes, in code order.
      const zero = await get('/dmdc-legal-statuses?q=0');
      const zeroCodes = zero.body.data.map((x: { code: string }) => x.code);
      expect(zeroCodes).toEqual([...zeroCodes].sort());
    });

    it('filters by exact code', async () => {
      const r = await get('/dmdc-business-unit-types?code=03');
      expect(r.body.data).toEqual([expect.objectContaining({ code: '03', name: 'Văn phòng đại diện' })]);
      expect((await get('/dmdc-business-unit-types?code=0')).body.total).toBe(0);
    });
  });

  describe('siblings', () => {
    it('serves every finance-ministry catalogue of the registry, non-empty, with its id prefix', async () => {
      expect(DATASETS).toHaveLength(11);
      for (const d of DATASETS) {
        const r = await get(`/${d.path}?per_page=1000`);
        expect(r.body.total).toBeGreaterThan(0);
        for (const x of r.body.data) expect(x.id.startsWith(d.id_prefix)).toBe(true);
        expect((await get(`/${d.path}/${r.body.data[0].id}`)).status).toBe(200);
        expect((await get(`/${d.path}/_stats`)).body.total).toBe(r.body.total);
      }
    });
  });

  describe('q by code', () => {
    it('finds every record of every catalogue by its own code, dots and all, first, and by each part of it', async () => {
      for (const d of DATASETS) {
        const all = (await get(`/${d.path}?per_page=1000`)).body.data as { id: string; code: string }[];
        for (const x of all) {
          const r = await get(`/${d.path}?q=${encodeURIComponent(x.code)}&per_page=1000`);
          expect([d.path, x.code, r.body.data[0]?.id]).toEqual([d.path, x.code, x.id]);
        }
      }
      const tt10 = await get('/dmdc-document-exchange-identifiers-tt10?q=H01.05');
      expect(tt10.body.data[0].code).toBe('H01.05');
      const part = await get('/dmdc-document-system-identifiers?q=QLVB&per_page=1000');
      expect(part.body.total).toBeGreaterThan(1);
      for (const x of part.body.data) expect(x.code.toUpperCase()).toMatch(/(^|[^A-Z0-9])QLVB/);
    });
  });

  describe('q by a code that reads as a word', () => {
    it('puts the code typed first, not the one a final i for y would make of it', async () => {
      // No catalogue holds such codes yet: a list imported later may (TY, TI), so two are added.
      const add = (code: string, i: number) =>
        h.db.query(
          `INSERT INTO mof_catalog_items (id, catalog, code, name, is_active, sort_order)
           VALUES ($1, 'dmdc-share-types', $2, $3, true, $4)`,
          [`lcp_iytest${i}`, code, `Loại thử ${code}`, 1000 + i],
        );
      try {
        await add('TI', 1);
        await add('TY', 2);
        const first = async (q: string) =>
          (await get(`/dmdc-share-types?q=${q}`)).body.data.map((x: { code: string }) => x.code);
        expect((await first('ty')).slice(0, 2)).toEqual(['TY', 'TI']);
        expect((await first('ti')).slice(0, 2)).toEqual(['TI', 'TY']);
      } finally {
        await h.db.query(`DELETE FROM mof_catalog_items WHERE id LIKE 'lcp_iytest%'`);
      }
    });
  });

  describe('q by a word written with an apostrophe', () => {
    it('finds the name by the word typed with its apostrophe or without it', async () => {
      try {
        await h.db.query(
          `INSERT INTO mof_catalog_items (id, catalog, code, name, is_active, sort_order)
           VALUES ('lcp_aptest1', 'dmdc-share-types', 'HL', 'Cổ phần Ea H''leo', true, 1001)`,
        );
        for (const q of ['hleo', "h'leo", 'ea hle'])
          expect([
            q,
            (await get(`/dmdc-share-types?q=${encodeURIComponent(q)}`)).body.data.map(
              (x: { code: string }) => x.code,
            ),
          ]).toEqual([q, ['HL']]);
        expect(await storedSearchMismatches(h.db, 'mof_catalog_items', ['name', 'code'])).toBe(0);
      } finally {
        await h.db.query(`DELETE FROM mof_catalog_items WHERE id = 'lcp_aptest1'`);
      }
    });
  });

  describe('errors', () => {
    it('answers 404 for an id of another catalogue', async () => {
      const other = (await get('/dmdc-share-types?per_page=1')).body.data[0].id;
      const r = await get(`/dmdc-business-unit-types/${other}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    });

    it('answers 422 for an over-long code or repeated q', async () => {
      expect((await get(`/dmdc-business-unit-types?code=${'x'.repeat(51)}`)).status).toBe(422);
      expect((await get('/dmdc-business-unit-types?q=a&q=b')).body.code).toBe('invalid_request');
    });
  });
});
