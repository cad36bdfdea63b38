import request from 'supertest';
import { directoryUpstream } from '../../src/upstreams/directory/directory-upstream';
import { TEST_DATABASES } from '../support/databases';
import {
  fold,
  expectTiersInOrder,
  hasWordStarting,
  registry,
  startUpstream,
  storedSearchMismatches,
} from './upstream-harness';
import type { Harness } from './upstream-harness';

const LIST_FIELDS = ['id', 'tax_code', 'name', 'address', 'province_name', 'ward_name', 'is_active'];
const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'province_code',
  'ward_code',
  'company_type',
  'status_id',
  'cert_date',
  'updated_at',
];
const DATASETS = registry('directory');

interface Org {
  id: string;
  tax_code: string;
  name: string;
  province_code: string;
  ward_code: string;
}

describe.each(TEST_DATABASES)('directory upstream on $name', (tdb) => {
  let h: Harness;
  const get = (path: string) => request(h.app).get(path);
  const org = async (where: string): Promise<Org> =>
    (
      await h.db.query<Org>(
        `SELECT id, tax_code, name, province_code, ward_code FROM directory_organisations WHERE dataset = 'bailiff-offices' AND ${where} LIMIT 1`,
      )
    ).rows[0]!;

  beforeAll(async () => {
    h = await startUpstream(tdb, directoryUpstream);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });

  it('exposes its own Prometheus metrics by dataset and status on /metrics', async () => {
    await get('/bailiff-offices?q=van&page=1&per_page=1');
    await get('/bailiff-offices/tc_doesnotexist');
    // The probes are not traffic: the kubelet's every 10 s would show as requests of no dataset.
    for (const probe of ['/healthz', '/livez']) expect((await get(probe)).status).toBe(200);
    const text = (await get('/metrics')).text;
    expect(text).not.toContain('dataset="unknown"');
    expect(text).toMatch(
      /lookup_upstream_http_requests_total\{dataset="bailiff-offices",status="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /lookup_upstream_http_requests_total\{dataset="bailiff-offices",status="404"\} [1-9]/,
    );
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('stores every name folded and split into words exactly as the search kit does', async () => {
    expect(await storedSearchMismatches(h.db, 'directory_organisations', ['name'])).toBe(0);
  });

  describe('datasets', () => {
    it('serves every directory dataset of the registry, non-empty, with its id prefix', async () => {
      expect(DATASETS.map((d) => d.path).sort()).toEqual(
        [
          'bailiff-offices',
          'higher-education-institutions',
          'law-firms',
          'lower-secondary-schools',
          'notary-offices',
          'preschools',
          'primary-schools',
          'upper-secondary-schools',
        ].sort(),
      );
      for (const d of DATASETS) {
        const r = await get(`/${d.path}?per_page=1000`);
        expect(r.status).toBe(200);
        expect(r.body.total).toBeGreaterThan(0);
        for (const rec of r.body.data) expect(rec.id.startsWith(d.id_prefix)).toBe(true);
        expect((await get(`/${d.path}/_stats`)).body.total).toBe(r.body.total);
      }
    });

    it('returns exactly the list fields in lists and all fields in the detail', async () => {
      const list = await get('/bailiff-offices?per_page=2');
      expect(Object.keys(list.body.data[0]).sort()).toEqual([...LIST_FIELDS].sort());
      const d = await get(`/bailiff-offices/${list.body.data[0].id}`);
      expect(Object.keys(d.body.data).sort()).toEqual([...DETAIL_FIELDS].sort());
      expect(d.body.data.tax_code).toMatch(/^\d{10}$/);
      expect(d.body.data.cert_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(d.body.data.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(typeof d.body.data.is_active).toBe('boolean');
      expect(typeof d.body.data.status_id).toBe('number');
    });

    it('pages through a dataset without overlap', async () => {
      const p1 = await get('/bailiff-offices?per_page=3&page=1');
      const p2 = await get('/bailiff-offices?per_page=3&page=2');
      const both = await get('/bailiff-offices?per_page=6');
      expect([...p1.body.data, ...p2.body.data]).toEqual(both.body.data);
    });
  });

  describe('filters', () => {
    it('matches q against the name only, without diacritics', async () => {
      const all = await get('/bailiff-offices?per_page=1000');
      const r = await get('/bailiff-offices?q=van+phong+thua+phat+lai&per_page=1000');
      expect(r.body.total).toBe(all.body.total);
      const o = await org("province_code <> ''");
      expect((await get(`/bailiff-offices?q=${o.tax_code}`)).body.total).toBe(0);
      const word = (await get('/bailiff-offices?per_page=1')).body.data[0].address.split(',')[0];
      const byAddress = await get(`/bailiff-offices?q=${encodeURIComponent(word)}&per_page=1000`);
      for (const x of byAddress.body.data)
        for (const w of fold(word).split(/\s+/)) expect(fold(x.name)).toContain(w);
    });

    it('matches each word at the start of a word of the name, so a short word does not match inside another', async () => {
      const all = (await get('/bailiff-offices?per_page=1')).body.total as number;
      // "ha" is inside every "Thừa phát lại": a substring match would return the whole dataset.
      const ha = await get('/bailiff-offices?q=h%C3%A0&per_page=1000');
      expect(ha.body.total).toBeLessThan(all);
      for (const x of ha.body.data) expect(hasWordStarting(x.name, 'ha')).toBe(true);
      // Punctuation typed with a word is not part of it.
      const name = (await get('/bailiff-offices?per_page=1')).body.data[0].name as string;
      const last = name.split(/\s+/).pop()!;
      const dotted = await get(`/bailiff-offices?q=${encodeURIComponent(`${last}.`)}`);
      expect(dotted.body.total).toBe(
        (await get(`/bailiff-offices?q=${encodeURIComponent(last)}`)).body.total,
      );
      expect(dotted.body.total).toBeGreaterThan(0);
    });

    it('ranks the names holding q as a whole word before those where it only starts a longer one', async () => {
      const paths = DATASETS.map((d) => d.path);
      // Every name starts with its kind: only the tiers of names holding q can show.
      expect(await expectTiersInOrder(h.app, paths, ['an', 'ha', 'thanh', 'hoa'])).toEqual([3, 4]);
    });

    it('matches the abbreviations people type for the words of names (THPT, VPCC), and the words themselves', async () => {
      const full = await get(
        `/upper-secondary-schools?q=${encodeURIComponent('trung học phổ thông chu văn an')}&per_page=1000`,
      );
      expect(full.body.total).toBeGreaterThan(0);
      const short = await get(
        `/upper-secondary-schools?q=${encodeURIComponent('THPT Chu Văn An')}&per_page=1000`,
      );
      expect(short.body.data).toEqual(full.body.data);
      const vpcc = await get('/notary-offices?q=vpcc+ha&per_page=1000');
      expect(vpcc.body.total).toBeGreaterThan(0);
      for (const x of vpcc.body.data) expect(x.name).toMatch(/^Văn phòng công chứng /);
      // The words of an abbreviation are whole and in a row: "tp" is not "Thanh … phòng".
      for (const d of DATASETS)
        for (const x of (await get(`/${d.path}?q=tp&per_page=1000`)).body.data)
          expect([d.path, x.name]).toEqual([d.path, expect.stringMatching(/\bTP|Thành phố/i)]);
    });

    it('filters by exact tax code', async () => {
      const o = await org('TRUE');
      const r = await get(`/bailiff-offices?tax_code=${o.tax_code}`);
      expect(r.body.data.map((x: Org) => x.id)).toEqual([o.id]);
      expect((await get(`/bailiff-offices?tax_code=${o.tax_code.slice(0, 6)}`)).body.total).toBe(0);
    });

    it('filters by province and ward code', async () => {
      const o = await org("province_code <> ''");
      const byProvince = await get(`/bailiff-offices?province_code=${o.province_code}&per_page=1000`);
      expect(byProvince.body.data.map((x: Org) => x.id)).toContain(o.id);
      for (const x of byProvince.body.data)
        expect((await get(`/bailiff-offices/${x.id}`)).body.data.province_code).toBe(o.province_code);
      const byWard = await get(`/bailiff-offices?ward_code=${o.ward_code}&province_code=${o.province_code}`);
      expect(byWard.body.data.map((x: Org) => x.id)).toContain(o.id);
    });

    it('filters by is_active written as true/false or 1/0', async () => {
      const all = (await get('/bailiff-offices')).body.total;
      const t = await get('/bailiff-offices?is_active=true&per_page=1000');
      const f = await get('/bailiff-offices?is_active=false&per_page=1000');
      expect(t.body.total + f.body.total).toBe(all);
      for (const x of t.body.data) expect(x.is_active).toBe(true);
      for (const x of f.body.data) expect(x.is_active).toBe(false);
      expect((await get('/bailiff-offices?is_active=1')).body.total).toBe(t.body.total);
      expect((await get('/bailiff-offices?is_active=0')).body.total).toBe(f.body.total);
    });

    it('keeps records with an unnormalised address, with empty codes, findable by name and tax code', async () => {
      const o = await org("province_code = ''");
      const d = await get(`/bailiff-offices/${o.id}`);
      expect(d.body.data).toMatchObject({
        province_code: '',
        ward_code: '',
        province_name: '',
        ward_name: '',
      });
      expect((await get(`/bailiff-offices?tax_code=${o.tax_code}`)).body.data[0].id).toBe(o.id);
      const byName = await get(`/bailiff-offices?q=${encodeURIComponent(o.name)}&per_page=1000`);
      expect(byName.body.data.map((x: Org) => x.id)).toContain(o.id);
    });
  });

  describe('errors', () => {
    it.each([
      'is_active=yes',
      'tax_code=' + '1'.repeat(21),
      'province_code=12345678901',
      'page=x',
      'per_page=1e3',
    ])('answers 422 for %s', async (qs) => {
      const r = await get(`/bailiff-offices?${qs}`);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('invalid_request');
    });

    it('takes a word that names a property every object has (constructor, toString) as a word, not as an abbreviation', async () => {
      for (const q of ['constructor', 'toString', 'Công ty CONSTRUCTOR', '__proto__ hasOwnProperty']) {
        const r = await get(`/bailiff-offices?q=${encodeURIComponent(q)}`);
        expect([q, r.status, r.body.total]).toEqual([q, 200, 0]);
      }
      const agencies = await get('/notary-offices?q=vpcc+constructor');
      expect([agencies.status, agencies.body.total]).toEqual([200, 0]);
    });

    it('answers 404 for an unknown id and for an id of another directory dataset', async () => {
      expect((await get('/bailiff-offices/tc_unknown')).status).toBe(404);
      const notary = (
        await h.db.query<{ id: string }>(
          "SELECT id FROM directory_organisations WHERE dataset = 'notary-offices' LIMIT 1",
        )
      ).rows[0]!;
      const r = await get(`/bailiff-offices/${notary.id}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('not_found');
      expect((await get(`/notary-offices/${notary.id}`)).status).toBe(200);
    });
  });
});
