import request from 'supertest';
import { foldText } from '../../src/upstream-kit';
import { unitId } from '../support/admin-unit-ids';
import { migrate } from '../../src/db/migrate';
import { adminUnitsUpstream } from '../../src/upstreams/admin-units/admin-units-upstream';
import { TEST_DATABASES } from '../support/databases';
import {
  expectTiersInOrder,
  hasWordStarting,
  registry,
  startUpstream,
  storedSearchMismatches,
} from './upstream-harness';
import type { Harness } from './upstream-harness';

// Known places: central Hanoi (Hoàn Kiếm lake), District 1 of Ho Chi Minh City, central Da Nang.
const HANOI = '21.0285,105.8542';
const HCMC = '10.7769,106.7009';
const DA_NANG = '16.0544,108.2022';
const SEA = '15.0,112.0';

const TOTALS: Record<string, number> = {
  provinces: 34,
  wards: 3321,
  'legacy-provinces': 63,
  'legacy-wards': 10052,
  'province-boundaries': 34,
  'ward-boundaries': 3321,
};

interface Unit {
  id: string;
  code: string;
  name?: string;
  full_name: string;
  level: string;
  coverage?: string;
  mapping_code?: string;
  province?: { id: string; code: string; name: string };
}

const codes = (rows: Unit[]): string[] => rows.map((r) => r.code);

describe.each(TEST_DATABASES)('admin-units upstream on $name', (tdb) => {
  let h: Harness;
  const get = (path: string) => request(h.app).get(path);
  const list = async (path: string): Promise<{ data: Unit[]; total: number }> => {
    const r = await get(path);
    expect(r.status).toBe(200);
    return r.body;
  };
  const detail = async (path: string): Promise<Record<string, unknown>> => {
    const r = await get(path);
    expect(r.status).toBe(200);
    return r.body.data;
  };

  beforeAll(async () => {
    h = await startUpstream(tdb, adminUnitsUpstream);
  }, 120_000);
  afterAll(async () => {
    await h?.db.close();
  });

  describe('datasets', () => {
    it('serves every admin-units dataset of the registry, with its id prefix and full total', async () => {
      const ds = registry('admin-units');
      expect(ds.map((d) => d.path).sort()).toEqual(Object.keys(TOTALS).sort());
      for (const d of ds) {
        const q = d.path === 'ward-boundaries' ? '?province_code=01&per_page=1000' : '?per_page=1000';
        const r = await list(`/${d.path}${q}`);
        expect(r.data.length).toBeGreaterThan(0);
        for (const rec of r.data) expect(rec.id.startsWith(d.id_prefix)).toBe(true);
        expect((await get(`/${d.path}/_stats`)).body.total).toBe(TOTALS[d.path]);
        if (d.path !== 'ward-boundaries') expect(r.total).toBe(TOTALS[d.path]);
        const one = await detail(`/${d.path}/${r.data[0]!.id}`);
        expect(one.id).toBe(r.data[0]!.id);
      }
    });

    it('gives every unit an opaque id that shows neither its code nor another id', async () => {
      const hanoi = (await list('/provinces?code=01')).data[0]!;
      const border = (await list('/province-boundaries?code=01')).data[0]!;
      // Written out once, so that a change of scheme cannot pass unnoticed: ids are for ever.
      expect([hanoi.id, border.id]).toEqual(['tinh_933713e4a47006', 'rgtinh_96c13a37b82eb4']);
      for (const ds of [
        'provinces',
        'wards',
        'legacy-provinces',
        'legacy-wards',
        'province-boundaries',
      ] as const) {
        const rows = (await list(`/${ds}?per_page=1000`)).data;
        // A hash of 14 hex digits after the prefix: never the code (2-5 digits) itself.
        for (const r of rows) expect(r.id).toMatch(/^[a-z]+_[0-9a-f]{14}$/);
      }
    });

    it('finds each unit by the id it keeps for ever', async () => {
      expect((await detail(`/provinces/${unitId('provinces', '01')}`)).full_name).toBe('Thành phố Hà Nội');
      expect((await detail(`/wards/${unitId('wards', '00004')}`)).full_name).toBe('Phường Ba Đình');
      expect((await detail(`/legacy-provinces/${unitId('legacy-provinces', '02')}`)).full_name).toBe(
        'Tỉnh Hà Giang',
      );
      expect((await detail(`/legacy-wards/${unitId('legacy-wards', '00001')}`)).full_name).toBe(
        'Phường Phúc Xá',
      );
      expect((await detail(`/province-boundaries/${unitId('province-boundaries', '79')}`)).unit_id).toBe(
        unitId('provinces', '79'),
      );
      expect((await detail(`/ward-boundaries/${unitId('ward-boundaries', '00004')}`)).unit_id).toBe(
        unitId('wards', '00004'),
      );
    });

    it('returns list fields in lists; detail adds area, bbox, came_from and mapping_2025', async () => {
      const w = (await list('/wards?code=00004')).data[0]!;
      expect(Object.keys(w).sort()).toEqual(
        [
          'id',
          'code',
          'name',
          'name_en',
          'full_name',
          'full_name_en',
          'level',
          'province',
          'mapping_notes',
        ].sort(),
      );
      expect(w).toMatchObject({
        name: 'Ba Đình',
        name_en: 'Ba Dinh',
        full_name_en: 'Ba Dinh Ward',
        level: 'phuong',
        province: { id: unitId('provinces', '01'), code: '01', name: 'Hà Nội' },
        mapping_notes: [],
      });
      const d = await detail(`/wards/${unitId('wards', '00004')}`);
      expect(Object.keys(d).sort()).toEqual(
        [...Object.keys(w), 'area_km2', 'bbox', 'came_from', 'mapping_2025'].sort(),
      );
      expect(d.area_km2).toBeCloseTo(2.97);
      const [minLng, minLat, maxLng, maxLat] = d.bbox as number[];
      expect(minLng).toBeLessThan(maxLng!);
      expect(minLat).toBeLessThan(maxLat!);
      expect(d.mapping_2025).toBeNull();
      const p = await detail(`/provinces/${unitId('provinces', '01')}`);
      expect(p).toMatchObject({ level: 'thanh-pho', name_en: 'Hanoi', ward_count: 126, area_km2: 3359.84 });
    });

    it('answers 404 for unknown ids and ids of another dataset', async () => {
      for (const p of [
        `/wards/${unitId('wards', '99999')}`,
        `/wards/${unitId('provinces', '01')}`,
        `/wards/${unitId('legacy-wards', '00004')}`,
        `/provinces/${unitId('legacy-provinces', '01')}`,
        `/ward-boundaries/${unitId('wards', '00004')}`,
      ]) {
        const r = await get(p);
        expect({ p, status: r.status, code: r.body.code }).toEqual({ p, status: 404, code: 'not_found' });
      }
    });
  });

  describe('filters', () => {
    it('provinces: q without diacritics or in English, code, level, amended', async () => {
      expect(codes((await list('/provinces?q=ho+chi+minh')).data)).toEqual(['79']);
      expect(codes((await list('/provinces?q=Hồ%20Chí%20Minh')).data)).toEqual(['79']);
      expect(codes((await list('/provinces?q=hanoi')).data)).toEqual(['01']);
      expect(codes((await list('/provinces?code=48')).data)).toEqual(['48']);
      const cities = await list('/provinces?level=thanh-pho');
      expect(cities.total).toBe(7);
      for (const c of cities.data) expect(c.level).toBe('thanh-pho');
      expect((await list('/provinces?level=tinh')).total).toBe(27);
      expect(codes((await list('/provinces?amended=true')).data)).toEqual(['75']);
      expect((await list('/provinces?amended=false')).total).toBe(33);
    });

    it('q: a word that names a property every object has (constructor, valueOf) finds nothing, with no error', async () => {
      for (const path of ['/provinces', '/wards', '/legacy-wards'])
        for (const q of ['constructor', 'ha valueOf'])
          expect((await list(`${path}?q=${encodeURIComponent(q)}`)).total).toBe(0);
    });

    it('q: each word starts a word of the name, the unit named so comes first, and an eth is a d', async () => {
      const ha = await list('/provinces?q=h%C3%A0');
      expect(ha.data[0]!.name).toBe('Hà Nội');
      // Not every "Thành phố", "Châu" or "Thanh" holding the letters "ha".
      for (const p of ha.data) expect(p.name).toMatch(/^H|\sH/);
      const phuAn = await list('/wards?q=ph%C3%BA+an');
      expect(phuAn.data[0]!.name).toBe('Phú An');
      expect(phuAn.total).toBeLessThan(100);
      // The units whose own name holds both words come before those where "Phường" holds one.
      expect(phuAn.data.slice(0, 2).map((w) => w.name)).toEqual(['Phú An', 'Phú An']);
      const inName = phuAn.data.map((w) => {
        const words = foldText(w.name!).split(' ');
        return words.some((x) => x.startsWith('phu')) && words.some((x) => x.startsWith('an'));
      });
      expect(inName.indexOf(false)).toBeGreaterThan(0);
      expect(inName.slice(inName.indexOf(false))).not.toContain(true);
      expect(codes((await list('/provinces?q=%C3%90a+nang')).data)).toEqual(['48']);
    });

    it('q with diacritics puts the names spelled as typed first in each tier; without them the order is unchanged', async () => {
      const names = async (q: string) =>
        (await list(`/wards?q=${encodeURIComponent(q)}&per_page=12`)).data.map((w) => w.name!);
      const typed = await names('phú');
      expect(typed).toHaveLength(12);
      for (const n of typed) expect(n).toMatch(/^Phú /);
      // The same words in capitals or decomposed (as some keyboards send them) rank alike.
      expect(await names('PHÚ')).toEqual(typed);
      expect(await names('phu\u0301')).toEqual(typed);
      // Without diacritics, Phủ Lý and Phù Mỹ are as near as any Phú.
      expect((await names('phu')).filter((n) => !n.startsWith('Phú ')).length).toBeGreaterThan(0);
      for (const n of await names('đông')) expect(n).toMatch(/^Đông /);
      // A word typed without diacritics takes any: "phù my" is Phù Mỹ, "phú my" Phú Mỹ.
      expect((await names('phù my'))[0]).toBe('Phù Mỹ');
      expect((await names('phú my'))[0]).toBe('Phú Mỹ');
      // The tone mark of a final oa/oe/uy sits on either vowel (the new list writes Hoà, the old one
      // Hòa); where a letter follows it has one place, so Hoài is not a spelling of Hòa.
      for (const path of ['wards', 'legacy-wards']) {
        const [oldStyle, newStyle] = await Promise.all(
          ['hòa', 'hoà'].map(
            async (q) => (await list(`/${path}?q=${encodeURIComponent(q)}&per_page=12`)).data,
          ),
        );
        expect(newStyle).toEqual(oldStyle);
        for (const w of oldStyle!) expect(w.name).toMatch(/^(Hoà|Hòa) /);
      }
    });

    it('q starting with the kind, spelled out or abbreviated, finds units of that kind and ranks the one so named first', async () => {
      const q = async (path: string, text: string) =>
        list(`/${path}?q=${encodeURIComponent(text)}&per_page=1000`);
      const phuHoa = await q('legacy-wards', 'phường phú hòa');
      expect(phuHoa.data[0]!.full_name).toBe('Phường Phú Hòa');
      expect((await q('wards', 'Phường An Phú')).data.slice(0, 2).map((w) => w.full_name)).toEqual([
        'Phường An Phú',
        'Phường An Phú',
      ]);
      // "P." is Phường: the 33 Phường 1 first, then Phường 10 to 19 and the other Phường with a 1,
      // and Xã Thường Phước 1 (a word starting with p, and a 1) last.
      const p1 = await q('legacy-wards', 'P.1');
      expect(p1.data.slice(0, 33).every((w) => w.full_name === 'Phường 1')).toBe(true);
      expect(p1.data.at(-1)!.full_name).toBe('Xã Thường Phước 1');
      // After the kind, the rest names the unit: "phường phú" is not every Phường by the "phu" in it.
      const phuongPhu = await q('wards', 'phường phú');
      expect(phuongPhu.total).toBeGreaterThan(0);
      expect(phuongPhu.total).toBeLessThan(200);
      for (const w of phuongPhu.data)
        expect([w.full_name, hasWordStarting(w.name!, 'phu')]).toEqual([w.full_name, true]);
      // A kind alone finds the units of that kind; as typed, it still starts names ("p co": Pà Cò).
      const tp = await q('provinces', 'TP');
      expect(tp.total).toBe(7);
      for (const p of tp.data) expect(p.full_name).toMatch(/^Thành phố /);
      expect((await q('wards', 'p co')).data.map((w) => w.name)).toContain('Pà Cò');
      const tt = await q('legacy-wards', 'TT. Phú Hòa');
      expect(tt.total).toBeGreaterThan(0);
      for (const w of tt.data) expect(w.full_name).toMatch(/^Thị [tT]rấn Phú H(oà|òa)/);
      expect(codes((await q('provinces', 'TP. Huế')).data)).toEqual(['46']);
      // A name that starts like a kind is still found by its own name first, typed whole or in part;
      // a word with other diacritics than the kind's is a name.
      expect((await q('legacy-wards', 'xà hồ')).data[0]!.full_name).toBe('Xã Xà Hồ');
      expect((await q('wards', 'xà ph')).data[0]!.full_name).toBe('Xã Xà Phiên');
      expect((await q('wards', 'phương b')).data[0]!.full_name).toBe('Xã Phương Bình');
      expect((await q('wards', 'phượng kim')).data[0]!.name).toBe('Kim Phượng');
      expect((await q('wards', 'phuong li')).data.slice(0, 2).map((w) => w.name)).toEqual([
        'Phương Liệt',
        'Phương Liễu',
      ]);
    });

    it('finds a name written with an apostrophe inside a word with it, with ’, or without it', async () => {
      for (const q of ["ea h'leo", 'ea h’leo', 'ea hleo', 'EA HLEO'])
        expect((await list(`/legacy-wards?q=${encodeURIComponent(q)}`)).data.map((w) => w.full_name)).toEqual(
          ["Xã Ea H'leo"],
        );
      expect((await list('/legacy-wards?q=cu+mgar')).data.map((w) => w.full_name)).toEqual(["Xã Cư M'gar"]);
      expect((await list('/wards?q=dran')).data.map((w) => w.full_name)).toContain("Xã D'Ran");
    });

    it('ranks a name starting with q, or holding it, as a whole word before one where q only starts a longer word', async () => {
      const paths = ['wards', 'legacy-wards', 'legacy-provinces'];
      expect(await expectTiersInOrder(h.app, paths, ['an', 'binh', 'phu', 'ha'])).toEqual([1, 2, 3, 4]);
    });

    it('ranks a name as one run of words, whatever its apostrophes and hyphens: dran is D’Ran, vien da Lâm Viên - Đà Lạt', async () => {
      const names = async (path: string, q: string) =>
        (await list(`/${path}?q=${encodeURIComponent(q)}&per_page=1000`)).data.map((w) => w.full_name);
      // The whole name before the four whose words only start with "dran".
      for (const q of ['dran', "d'ran", 'D’Ran'])
        expect((await names('legacy-wards', q))[0]).toBe("Thị trấn D'Ran");
      expect(await names('wards', 'dran')).toEqual(["Xã D'Ran", 'Xã Ea Drăng', 'Xã Pơng Drang']);
      // A phrase across the hyphen, or after an apostrophe and a space, is a phrase of the name.
      expect(await names('wards', 'vien da')).toEqual(['Phường Lâm Viên - Đà Lạt', 'Phường Đào Viên']);
      expect(await names('legacy-wards', 'm rong')).toEqual(["Xã Đạ M' Rong", 'Xã Tu Mơ Rông']);
      // Ea D'Rơng and Ea Drông are the same words folded; the one spelled as typed comes first.
      expect(await names('legacy-wards', 'ea drơng')).toEqual(["Xã Ea D'Rơng", 'Xã Ea Drông']);
      expect(await names('legacy-wards', 'ea drông')).toEqual(['Xã Ea Drông', "Xã Ea D'Rơng"]);
    });

    it('ranks by the words as typed across punctuation, where the code order would say otherwise', async () => {
      // No loaded pair settles this: Ea D'Rơng's code is the lower one. Added for this test alone.
      const rows = [
        ['99991', 'Pa Ri'],
        ['99992', 'Pa - Rí'],
        ['99993', 'K Lông'],
        ['99994', "K'Lông"],
      ];
      try {
        for (const [code, name] of rows)
          await h.db.query(
            `INSERT INTO admin_legacy_wards (code, province_code, name, full_name, level) VALUES ($1, '01', $2, $3, 'xa')`,
            [code, name, `Xã ${name}`],
          );
        const names = async (q: string) =>
          (await list(`/legacy-wards?q=${encodeURIComponent(q)}&per_page=2`)).data.map((w) => w.name);
        expect(await names('pa rí')).toEqual(['Pa - Rí', 'Pa Ri']);
        expect(await names('pa ri')).toEqual(['Pa Ri', 'Pa - Rí']);
        expect(await names("k'lông")).toEqual(["K'Lông", 'K Lông']);
        expect(await names('k lông')).toEqual(['K Lông', "K'Lông"]);
      } finally {
        await h.db.query(`DELETE FROM admin_legacy_wards WHERE code IN ('99991', '99992', '99993', '99994')`);
      }
    });

    it('finds a syllable written with a final i or y either way (kì is Kỳ, vĩ is Vỹ) and ranks it as either', async () => {
      const names = async (path: string, q: string) =>
        (await list(`/${path}?q=${encodeURIComponent(q)}&per_page=1000`)).data.map((w) => w.full_name);
      for (const q of ['kì anh', 'ki anh', 'kỳ anh', 'ky anh'])
        expect((await names('wards', q))[0]).toBe('Xã Kỳ Anh');
      for (const q of ['vĩ dạ', 'vi da']) expect((await names('wards', q))[0]).toBe('Phường Vỹ Dạ');
      // Ranked as spelled either way: Lý Nhân is the name starting with "li n", before Nam Lý.
      expect((await names('wards', 'lí n'))[0]).toBe('Xã Lý Nhân');
      for (const n of (await names('wards', 'mi t')).slice(0, 5)) expect(n).toMatch(/ Mỹ T/);
      // The other spelling is a whole word ("ly" is on its way to no other word; "li" may be Linh),
      // and after another vowel i and y are different letters (Tây is not "tai").
      for (const n of await names('wards', 'ly'))
        expect([
          n,
          foldText(n)
            .split(/[^a-z]+/)
            .some((w) => w.startsWith('ly') || w === 'li'),
        ]).toEqual([n, true]);
      expect(await names('provinces', 'tai ninh')).toEqual([]);
    });

    it('finds places by the abbreviations people type: HCM, TP.HCM, BRVT, Saigon', async () => {
      for (const q of ['HCM', 'TP.HCM', 'tphcm', 'TP. HCM'])
        expect(codes((await list(`/provinces?q=${encodeURIComponent(q)}`)).data)).toEqual(['79']);
      expect((await list('/legacy-provinces?q=brvt')).data.map((p) => p.full_name)).toEqual([
        'Tỉnh Bà Rịa - Vũng Tàu',
      ]);
      expect((await list('/wards?q=saigon')).data.map((w) => w.full_name)).toEqual(['Phường Sài Gòn']);
    });

    it('wards: q, province_code, level, code, amended, together', async () => {
      const q = await list('/wards?q=ba+dinh');
      expect(codes(q.data)).toEqual(expect.arrayContaining(['00004']));
      expect((await list('/wards?q=BA%20%C4%90%C3%8CNH&province_code=01')).data.map((x) => x.code)).toEqual([
        '00004',
      ]);
      expect((await list('/wards?province_code=01')).total).toBe(126);
      expect((await list('/wards?level=dac-khu')).total).toBe(13);
      expect((await list('/wards?level=phuong')).total + (await list('/wards?level=xa')).total).toBe(
        3321 - 13,
      );
      const hnPhuong = await list('/wards?province_code=01&level=phuong&per_page=1000');
      expect(hnPhuong.total).toBe(51);
      for (const w of hnPhuong.data) expect([w.level, w.province!.code]).toEqual(['phuong', '01']);
      expect(codes((await list('/wards?code=26740')).data)).toEqual(['26740']);
      expect((await list('/wards?amended=true')).total).toBe(12);
    });

    it('legacy-provinces: q, code, level, new_province_code', async () => {
      // Words match inside words, as everywhere in the kit: "ha giang" also finds Hậu Giang.
      expect(codes((await list('/legacy-provinces?q=ha+giang')).data)).toEqual(['02', '93']);
      expect(codes((await list('/legacy-provinces?q=Tuyên+Quang')).data)).toEqual(['08']);
      expect(codes((await list('/legacy-provinces?code=77')).data)).toEqual(['77']);
      expect((await list('/legacy-provinces?level=thanh-pho')).total).toBe(6);
      expect(codes((await list('/legacy-provinces?new_province_code=79')).data)).toEqual(['74', '77', '79']);
    });

    it('legacy-wards: q, code, province_code, level, new_ward_code, new_province_code', async () => {
      expect(codes((await list('/legacy-wards?q=cong+vi&province_code=01')).data)).toEqual(['00007']);
      expect(codes((await list('/legacy-wards?code=00019')).data)).toEqual(['00019']);
      expect((await list('/legacy-wards?province_code=02')).total).toBe(193);
      expect((await list('/legacy-wards?level=huyen')).total).toBe(5);
      expect((await list('/legacy-wards?level=thi-tran')).total).toBe(617);
      expect(codes((await list('/legacy-wards?new_ward_code=00004&per_page=50')).data)).toEqual([
        '00004',
        '00013',
        '00016',
        '00019',
        '00022',
        '00028',
        '00040',
        '00055',
        '00073',
        '00112',
      ]);
      const toHcmc = await list('/legacy-wards?new_province_code=79&level=huyen');
      expect(codes(toHcmc.data)).toEqual(['755']);
    });

    it('boundaries: code, province_code, q; ward-boundaries needs one of point, code, province_code, q', async () => {
      expect(codes((await list('/province-boundaries?code=01')).data)).toEqual(['01']);
      expect(codes((await list('/province-boundaries?q=da+nang')).data)).toEqual(['48']);
      expect((await list('/ward-boundaries?province_code=79')).total).toBe(168);
      expect(codes((await list('/ward-boundaries?code=00070')).data)).toEqual(['00070']);
      expect(codes((await list('/ward-boundaries?q=hoan+kiem')).data)).toEqual(['00070']);
      const r = await get('/ward-boundaries');
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('invalid_request');
    });

    it('pages without overlap', async () => {
      const p1 = await list('/legacy-wards?province_code=01&per_page=5&page=1');
      const p2 = await list('/legacy-wards?province_code=01&per_page=5&page=2');
      expect(p1.total).toBe(p2.total);
      expect(codes(p1.data).filter((c) => codes(p2.data).includes(c))).toEqual([]);
    });
  });

  describe('before and after the reorganisation', () => {
    it('old → new for a commune that was split: Phường Cống Vị went partly to Ngọc Hà and Giảng Võ', async () => {
      const d = await detail(`/legacy-wards/${unitId('legacy-wards', '00007')}`);
      expect(d).toMatchObject({ full_name: 'Phường Cống Vị', level: 'phuong', province: { code: '01' } });
      const to = d.went_to as Unit[];
      expect(to.map((u) => [u.id, u.full_name, u.coverage])).toEqual([
        [unitId('wards', '00008'), 'Phường Ngọc Hà', 'partial'],
        [unitId('wards', '00025'), 'Phường Giảng Võ', 'partial'],
      ]);
      expect(
        (await detail(`/legacy-wards/${unitId('legacy-wards', '00019')}`)).went_to as Unit[],
      ).toHaveLength(4);
    });

    it('old → new for a commune merged whole: Phường Trúc Bạch is now in Phường Ba Đình', async () => {
      const to = (await detail(`/legacy-wards/${unitId('legacy-wards', '00004')}`)).went_to as Unit[];
      expect(to.map((u) => [u.id, u.coverage, u.mapping_code, u.province?.code])).toEqual([
        [unitId('wards', '00004'), 'full', '00004', '01'],
      ]);
    });

    it('new → old for a merged ward: Phường Ba Đình came from 2 whole and 8 partial old wards', async () => {
      const from = (await detail(`/wards/${unitId('wards', '00004')}`)).came_from as Unit[];
      expect(from).toHaveLength(10);
      expect(from.filter((u) => u.coverage === 'full').map((u) => u.full_name)).toEqual([
        'Phường Trúc Bạch',
        'Phường Quán Thánh',
      ]);
      expect(from[0]).toMatchObject({
        id: unitId('legacy-wards', '00004'),
        province: { id: unitId('legacy-provinces', '01'), code: '01' },
      });
    });

    it('provinces: Hà Giang went into Tuyên Quang, which came from both', async () => {
      const to = (await detail(`/legacy-provinces/${unitId('legacy-provinces', '02')}`)).went_to as Unit[];
      expect(to.map((u) => [u.id, u.coverage])).toEqual([[unitId('provinces', '08'), 'full']]);
      const from = (await detail(`/provinces/${unitId('provinces', '08')}`)).came_from as Unit[];
      expect(from.map((u) => u.id)).toEqual([
        unitId('legacy-provinces', '02'),
        unitId('legacy-provinces', '08'),
      ]);
      expect(
        ((await detail(`/provinces/${unitId('provinces', '79')}`)).came_from as Unit[]).map((u) => u.code),
      ).toEqual(['74', '77', '79']);
    });

    it('an island district without communes became a special zone', async () => {
      const to = (await detail(`/legacy-wards/${unitId('legacy-wards', '755')}`)).went_to as Unit[];
      expect(to.map((u) => [u.full_name, u.level, u.province?.code])).toEqual([
        ['Đặc khu Côn Đảo', 'dac-khu', '79'],
      ]);
    });
  });

  describe('disagreements between the 2025 mapping and the current list', () => {
    it('flags a code changed since the mapping, and still links the old units to the current code', async () => {
      const d = await detail(`/wards/${unitId('wards', '06978')}`);
      expect(d).toMatchObject({
        full_name: 'Xã Ba Chẽ',
        mapping_notes: ['code_changed'],
        mapping_2025: { code: '06970', full_name: 'Xã Ba Chẽ' },
      });
      expect((d.came_from as Unit[]).map((u) => u.code)).toEqual([
        '06886',
        '06970',
        '06973',
        '06982',
        '06988',
      ]);
      const to = (await detail(`/legacy-wards/${unitId('legacy-wards', '23938')}`)).went_to as Unit[];
      expect(to.map((u) => [u.code, u.mapping_code])).toEqual([['23938', '23737']]);
      expect((await get(`/wards/${unitId('wards', '06970')}`)).status).toBe(404);
    });

    it('flags a changed unit type: Đồng Nai is a city now, ten of its communes wards', async () => {
      expect(await detail(`/provinces/${unitId('provinces', '75')}`)).toMatchObject({
        full_name: 'Thành phố Đồng Nai',
        level: 'thanh-pho',
        mapping_notes: ['level_changed'],
        mapping_2025: { code: '75', full_name: 'Tỉnh Đồng Nai' },
      });
      const changed = await list('/wards?amended=true&province_code=75');
      expect(changed.total).toBe(10);
      for (const w of changed.data) expect(w.level).toBe('phuong');
    });

    it('keeps the reconciliation counts with the loaded data', async () => {
      const r = await h.db.query<{ options: unknown }>(
        'SELECT options FROM admin_units_seed_state WHERE id = 1',
      );
      const raw = r.rows[0]!.options;
      const stats = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>;
      expect(stats).toMatchObject({
        amended_provinces: 1,
        amended_wards: 12,
        notes: { code_changed: 2, level_changed: 11, renamed: 0, not_in_mapping: 0 },
        mapping_units_unmatched: 0,
        links_dropped: 0,
      });
      // The counts describe what is served, not only what the seeder believed it loaded.
      expect((await list('/provinces?amended=true&per_page=1')).total).toBe(stats.amended_provinces);
      expect((await list('/wards?amended=true&per_page=1')).total).toBe(stats.amended_wards);
      const served = await h.db.query<{ note: string; n: number }>(
        `SELECT note, count(*)::int AS n FROM (
           SELECT unnest(mapping_notes) AS note FROM admin_provinces
           UNION ALL SELECT unnest(mapping_notes) FROM admin_wards) notes GROUP BY note`,
      );
      const byNote = Object.fromEntries(served.rows.map((row) => [row.note, row.n]));
      for (const [note, n] of Object.entries(stats.notes as Record<string, number>))
        expect([note, byNote[note] ?? 0]).toEqual([note, n]);
    });
  });

  describe('point lookup', () => {
    it.each([
      [HANOI, '00070', 'Phường Hoàn Kiếm', '01'],
      [HCMC, '26740', 'Phường Sài Gòn', '79'],
      [DA_NANG, '20257', 'Phường Hoà Cường', '48'],
    ])('finds the ward and province containing %s', async (point, ward, name, province) => {
      const w = await list(`/ward-boundaries?point=${point}`);
      expect(w.data.map((u) => [u.code, u.full_name, u.province?.code])).toEqual([[ward, name, province]]);
      expect(w.total).toBe(1);
      const p = await list(`/province-boundaries?point=${point}`);
      expect(codes(p.data)).toEqual([province]);
    });

    it('finds nothing at sea', async () => {
      expect(await list(`/ward-boundaries?point=${SEA}`)).toEqual({ data: [], total: 0 });
      expect(await list(`/province-boundaries?point=${SEA}`)).toEqual({ data: [], total: 0 });
      expect(await list('/ward-boundaries?point=48.8566,2.3522')).toEqual({ data: [], total: 0 });
    });

    it('combines point with other filters', async () => {
      expect((await list(`/ward-boundaries?point=${HANOI}&province_code=01`)).total).toBe(1);
      expect((await list(`/ward-boundaries?point=${HANOI}&province_code=79`)).total).toBe(0);
    });

    it('accepts the spellings the gateway accepts (spaces, integers, negative zero)', async () => {
      expect((await list('/ward-boundaries?point=21.0285,%20105.8542')).total).toBe(1);
      expect((await list('/province-boundaries?point=-0,0')).total).toBe(0);
    });

    it.each([
      'abc',
      '21.0285',
      '21.0285,105.8542,3',
      '21.0285;105.8542',
      '1e1,105',
      '91,105',
      '-90.5,0',
      '21,181',
      '21,-180.01',
      '0x10,5',
    ])('answers 422 invalid_request for point=%s', async (point) => {
      const r = await get(`/ward-boundaries?point=${encodeURIComponent(point)}`);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'invalid_request', param: 'point' });
      expect((await get(`/province-boundaries?point=${encodeURIComponent(point)}`)).status).toBe(422);
    });

    it('answers 422 for a repeated point', async () => {
      expect((await get(`/ward-boundaries?point=${HANOI}&point=${HCMC}`)).status).toBe(422);
    });

    it('returns the GeoJSON geometry in detail only', async () => {
      const w = await list(`/ward-boundaries?point=${HANOI}`);
      expect(w.data[0]).not.toHaveProperty('geometry');
      const d = await detail(`/ward-boundaries/${w.data[0]!.id}`);
      expect(d.geometry).toMatchObject({ type: 'Polygon', coordinates: expect.any(Array) });
      const p = await detail(`/province-boundaries/${unitId('province-boundaries', '01')}`);
      expect((p.geometry as { type: string }).type).toBe('MultiPolygon');
      expect((await detail(`/wards/${unitId('wards', '00070')}`)).geometry).toBeUndefined();
    });
  });

  describe('loading', () => {
    it('seeds once: a second seed and a second app change nothing', async () => {
      const count = async () =>
        (
          await h.db.query<{ n: number }>(
            'SELECT (SELECT count(*) FROM admin_wards) + (SELECT count(*) FROM admin_ward_links) + (SELECT count(*) FROM admin_legacy_wards) AS n',
          )
        ).rows[0]!.n;
      const before = Number(await count());
      for (const set of adminUnitsUpstream.migrationSets) expect(await migrate(h.db, set)).toEqual([]);
      await adminUnitsUpstream.seed(h.db, { seed: 99, scale: 2 });
      expect(Number(await count())).toBe(before);
      expect(before).toBe(3321 + 10604 + 10052);
    });

    it('stores every searched name folded and split into words exactly as the search kit does', async () => {
      const vi = ['name', 'full_name'];
      expect(await storedSearchMismatches(h.db, 'admin_provinces', [...vi, 'full_name_en'])).toBe(0);
      expect(await storedSearchMismatches(h.db, 'admin_wards', [...vi, 'full_name_en'])).toBe(0);
      expect(await storedSearchMismatches(h.db, 'admin_legacy_provinces', vi)).toBe(0);
      expect(await storedSearchMismatches(h.db, 'admin_legacy_wards', vi)).toBe(0);
    });

    it('answers /healthz once the boundary index is built', async () => {
      expect((await get('/healthz')).body).toEqual({ status: 'ok' });
    });
  });
});
