import request from 'supertest';
import type { Db } from '../db/db';
import { silentLogger } from '../util/logger';
import { TEST_DATABASES } from '../../test/support/databases';
import {
  createUpstreamApp,
  eq,
  foldText,
  insertRows,
  isCalendarDate,
  keywordWords,
  parsePaging,
} from './index';
import type { DatasetSpec } from './index';
import { capturedLog } from '../../test/support/captured-log';
import { rankTextExpr, spelledWordsExpr } from './normalize-keyword';

/** A dataset a new team might declare: two-segment path, typed filters, search over two columns. */
const things: DatasetSpec = {
  path: 'catalogs/things',
  idPrefix: 'th_',
  from: 'kit_things t',
  idColumn: 't.id',
  listFields: { id: 't.id', name: 't.name' },
  detailFields: { note: 't.note', size: 't.size' },
  filters: {
    size: eq('t.size', { type: 'integer', min: 0 }),
    active: eq('t.active', { type: 'boolean' }),
    kind: eq('t.kind', { type: 'enum', values: ['a', 'b'] }, 'a'),
  },
  search: {
    param: 'q',
    modeParam: 'search_in',
    defaultMode: 'both',
    modes: { both: { columns: ['t.name', 't.note'], match: 'words' } },
  },
  sort: {
    param: 'sort',
    default: 'name',
    options: { name: { orderBy: 't.name, t.id' }, size: { orderBy: 't.size DESC, t.id' } },
  },
  subresources: { echo: (_db, id) => Promise.resolve({ id }), nothing: () => Promise.resolve(null) },
};

const NAMES = ['Luật Đất đai', 'Nghị định về đất', 'Thông tư hướng dẫn', 'Quyết định 100%_đặc biệt'];

async function setUp(db: Db): Promise<void> {
  await db.exec('CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public');
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'))");
    await tx.query(
      "CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$",
    );
  });
  await db.exec(
    `CREATE TABLE kit_things (id text PRIMARY KEY, name text NOT NULL, note text NOT NULL, size int NOT NULL, active boolean NOT NULL, kind text NOT NULL)`,
  );
  const rows = Array.from({ length: 1205 }, (_, i) => [
    `th_${String(i).padStart(4, '0')}`,
    NAMES[i % 4]!,
    i % 5 === 0 ? 'ghi chú đặc biệt' : 'khác',
    i % 10,
    i % 2 === 0,
    i < 1204 ? 'a' : 'b',
  ]);
  await insertRows(db, 'kit_things', ['id', 'name', 'note', 'size', 'active', 'kind'], rows);
}

describe('upstream kit helpers', () => {
  it('folds Vietnamese text to lower case without diacritics, đ to d', () => {
    expect(foldText('Luật ĐẤT đai')).toBe('luat dat dai');
    expect(foldText('Luật'.normalize('NFD'))).toBe('luat');
    expect(keywordWords(' Nghị  định, 15/2024/NĐ-CP ')).toEqual(['nghi', 'dinh', '15/2024/nd-cp']);
  });

  it('accepts only real calendar dates', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2024-13-01')).toBe(false);
    expect(isCalendarDate('2024-1-01')).toBe(false);
  });

  it('clamps paging to page >= 1 and per_page 1..1000, default 20', () => {
    expect(parsePaging({})).toEqual({ page: 1, perPage: 20 });
    expect(parsePaging({ page: '-3', per_page: '0' })).toEqual({ page: 1, perPage: 1 });
    expect(parsePaging({ page: '2', per_page: '99999' })).toEqual({ page: 2, perPage: 1000 });
    expect(() => parsePaging({ page: '1.5' })).toThrow();
  });
});

describe.each(TEST_DATABASES)('an upstream built with the kit on $name', (tdb) => {
  let db: Db;
  const app = () => createUpstreamApp({ db, logger: silentLogger(), datasets: [things] });
  const get = (p: string) => request(app()).get(p);

  beforeAll(async () => {
    db = await tdb.open();
    await setUp(db);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  describe('happy paths', () => {
    it('serves a two-segment path with list, detail, sub-resource and _stats', async () => {
      const list = await get('/catalogs/things?per_page=2');
      expect(list.body).toEqual({
        data: [
          { id: 'th_0000', name: 'Luật Đất đai' },
          { id: 'th_0004', name: 'Luật Đất đai' },
        ],
        total: 1204,
      });
      expect((await get('/catalogs/things/th_0001')).body.data).toEqual({
        id: 'th_0001',
        name: 'Nghị định về đất',
        note: 'khác',
        size: 1,
      });
      expect((await get('/catalogs/things/th_0001/echo')).body).toEqual({ data: { id: 'th_0001' } });
      expect((await get('/catalogs/things/_stats')).body).toEqual({ total: 1205 });
    });

    it('caps per_page at 1000', async () => {
      expect((await get('/catalogs/things?per_page=5000')).body.data).toHaveLength(1000);
    });

    it('applies typed filters and enum defaults', async () => {
      expect((await get('/catalogs/things?size=3')).body.total).toBe(121);
      expect((await get('/catalogs/things?size=3&active=1')).body.total).toBe(0);
      expect((await get('/catalogs/things?kind=b')).body.data.map((x: { id: string }) => x.id)).toEqual([
        'th_1204',
      ]);
    });

    it('requires every keyword, each in any searched column', async () => {
      expect((await get('/catalogs/things?q=dat')).body.total).toBe(602);
      expect((await get('/catalogs/things?q=luat+dac+biet')).body.total).toBe(61);
      expect((await get('/catalogs/things?q=luat+thong')).body.total).toBe(0);
    });

    it('splits keywords on punctuation, so LIKE wildcards never act as patterns', async () => {
      expect((await get('/catalogs/things?q=100%25_dac')).body.total).toBe(301);
    });

    it('sorts by a declared option', async () => {
      expect((await get('/catalogs/things?sort=size&per_page=1')).body.data[0].id).toBe('th_0009');
    });

    it('answers /healthz', async () => {
      expect((await get('/healthz')).body).toEqual({ status: 'ok' });
    });

    it('ranks names by their words: apostrophes dropped, the punctuation names carry a space', async () => {
      const names = ['Văn Miếu – Quốc Tử Giám', 'Ea M’Droh', "Đạ M' Rong", '"Sao Mai" (A.B), Số 1/2 & 3'];
      const r = await db.query<{ terms: string; spelled: string }>(
        `SELECT ${rankTextExpr('n')} AS terms, ${spelledWordsExpr('lower(n)')} AS spelled
           FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i) ORDER BY i`,
        [names],
      );
      expect(r.rows).toEqual([
        { terms: 'van mieu quoc tu giam', spelled: 'văn miếu quốc tử giám' },
        { terms: 'ea mdroh', spelled: 'ea mdroh' },
        { terms: 'da m rong', spelled: 'đạ m rong' },
        { terms: 'sao mai a b so 1 2 3', spelled: 'sao mai a b số 1 2 3' },
      ]);
    });
  });

  describe('errors', () => {
    it.each([
      'size=-1',
      'size=x',
      'active=maybe',
      'kind=c',
      'sort=random',
      // Names of the object's prototype are no option either (they had answered 500).
      'sort=constructor',
      'sort=__proto__',
      'q=luat&search_in=toString',
      'search_in=constructor',
      'page=abc',
      'q=' + 'x'.repeat(201),
    ])('answers 422 for %s', async (qs) => {
      const r = await get(`/catalogs/things?${qs}`);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'invalid_request', message: expect.any(String) });
    });

    it('answers 422 unknown_parameter for a parameter the dataset does not read, where it served the list unfiltered', async () => {
      const r = await get('/catalogs/things?kind=a&year_from=2000');
      expect([r.status, r.body]).toEqual([
        422,
        { code: 'unknown_parameter', message: expect.stringContaining('year_from'), param: 'year_from' },
      ]);
      // What it reads: paging, filters, the search and its mode, the sort.
      expect((await get('/catalogs/things?page=1&per_page=5&kind=a&q=luat&sort=name')).status).toBe(200);
    });

    it('counts a keyword in characters as the gateway does: 200 emoji pass, 201 do not', async () => {
      const q = (n: number) => encodeURIComponent('😀'.repeat(n));
      expect((await get(`/catalogs/things?q=${q(200)}`)).status).toBe(200);
      expect((await get(`/catalogs/things?q=${q(201)}`)).status).toBe(422);
    });

    it.each([
      '/catalogs/things/th_9999',
      '/catalogs/things/xx_0001',
      '/catalogs/things/th_0001/nothing',
      '/catalogs/things/th_9999/echo',
    ])('answers 404 not_found for the unknown id of %s', async (p) => {
      const r = await get(p);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
    });

    it.each(['/catalogs/things/th_0001/missing', '/catalogs/other'])(
      'answers 404 unknown_endpoint, not not_found, for %s, a path it does not serve',
      async (p) => {
        const r = await get(p);
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('unknown_endpoint');
      },
    );

    it('hides database errors behind 500 internal_error', async () => {
      const broken: DatasetSpec = { ...things, path: 'broken', from: 'no_such_table t' };
      const r = await request(createUpstreamApp({ db, logger: silentLogger(), datasets: [broken] })).get(
        '/broken',
      );
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ code: 'internal_error', message: expect.any(String) });
    });

    it("logs each answer that is not a success, and each failure, under the gateway's request id (a routine 404 at debug)", async () => {
      const { logger: captured, lines } = capturedLog('debug');
      const broken: DatasetSpec = { ...things, path: 'broken', from: 'no_such_table t' };
      const app = createUpstreamApp({ db, logger: captured, datasets: [things, broken] });
      await request(app).get('/catalogs/things/th_0001').set('x-request-id', 'req-ok');
      await request(app).get('/catalogs/things/th_9999').set('x-request-id', 'req-404');
      await request(app).get('/broken').set('x-request-id', 'req-500');
      await request(app).get('/no-such-path').set('x-request-id', 'req-drift');
      await new Promise((r) => setImmediate(r));
      expect(lines.map((l) => [l.level, l.msg, l.req_id, l.status])).toEqual([
        [20, 'upstream answer', 'req-404', 404],
        [50, 'upstream request failed', 'req-500', undefined],
        [30, 'upstream answer', 'req-500', 500],
        // A path it does not serve is the gateway's config drifting, not a caller's mistake.
        [30, 'upstream answer', 'req-drift', 404],
      ]);
    });

    it('answers 503 on /healthz when the database does not, and stays alive on /livez', async () => {
      const dead: Db = { ...db, query: () => Promise.reject(new Error('down')) };
      const app = createUpstreamApp({ db: dead, logger: silentLogger(), datasets: [] });
      expect((await request(app).get('/healthz')).status).toBe(503);
      const live = await request(app).get('/livez');
      expect([live.status, live.body]).toEqual([200, { status: 'ok' }]);
    });
  });
});
