import { readAdminUnitsSource } from '../../src/upstreams/admin-units/admin-units-source';
import { reconcileAdminUnits } from '../../src/upstreams/admin-units/admin-units-reconcile';
import type { AdminUnitsData } from '../../src/upstreams/admin-units/admin-units-rows';
import { spellingKey, splitUnitName, tidyFullName } from '../../src/upstreams/admin-units/unit-names';
import { projectRoot } from '../../src/util/project-root';

describe('unit names', () => {
  it('reads the unit type from the name, whatever its case', () => {
    expect(splitUnitName('Phường Ba Đình')).toEqual({ level: 'phuong', name: 'Ba Đình' });
    expect(splitUnitName('xã Bắc Sơn')).toEqual({ level: 'xa', name: 'Bắc Sơn' });
    expect(splitUnitName('Thị Trấn Ba Chẽ')).toEqual({ level: 'thi-tran', name: 'Ba Chẽ' });
    expect(splitUnitName('Đặc khu Côn Đảo')).toEqual({ level: 'dac-khu', name: 'Côn Đảo' });
    expect(splitUnitName('Thành phố Hà Nội')).toEqual({ level: 'thanh-pho', name: 'Hà Nội' });
    expect(() => splitUnitName('Quận 1')).toThrow(/unknown/);
  });

  it('treats old and new tone-mark placement as the same spelling', () => {
    expect(spellingKey('Phường Yên Hoà')).toBe(spellingKey('Phường Yên Hòa'));
    expect(spellingKey('Xã Điềm Thuỵ')).toBe(spellingKey('Xã Điềm Thụy'));
    expect(spellingKey('Xã Hoà An')).not.toBe(spellingKey('Xã Hoà Ân'));
    expect(tidyFullName('xã Bắc Sơn')).toBe('Xã Bắc Sơn');
  });
});

describe('reconciling the shipped files', () => {
  let d: AdminUnitsData;
  beforeAll(() => {
    d = reconcileAdminUnits(readAdminUnitsSource(projectRoot()));
  });

  it('holds the documented counts (docs/admin-units.md)', () => {
    expect(d.stats).toEqual({
      provinces: 34,
      wards: 3321,
      legacy_provinces: 63,
      legacy_wards: 10052,
      legacy_districts_without_communes: 5,
      province_links: 63,
      ward_links: 10604,
      partial_ward_links: 1012,
      legacy_wards_split: 460,
      amended_provinces: 1,
      amended_wards: 12,
      notes: { code_changed: 2, level_changed: 11, renamed: 0, not_in_mapping: 0 },
      spelling_only_differences: 192,
      mapping_units_unmatched: 0,
      links_dropped: 0,
    });
  });

  it('writes every name with single spaces and none at the ends, as the sources do not always ("Xã Cò  Nòi")', () => {
    const names = [d.provinces, d.wards, d.legacyProvinces, d.legacyWards].flatMap((units) =>
      units.flatMap((u) => [u.name, u.fullName]),
    );
    expect(names.length).toBeGreaterThan(2 * 13_000);
    expect(names.filter((n) => /\s\s|^\s|\s$/.test(n))).toEqual([]);
    expect(d.legacyWards.find((u) => u.code === '04138')?.fullName).toBe('Xã Cò Nòi');
  });

  it('gives every new unit a boundary, an area and a bounding box', () => {
    for (const u of [...d.provinces, ...d.wards]) {
      expect({ code: u.code, geometry: u.geometry !== null, area: (u.areaKm2 ?? 0) > 0 }).toEqual({
        code: u.code,
        geometry: true,
        area: true,
      });
      const [minLng, minLat, maxLng, maxLat] = u.bbox!;
      expect(minLng).toBeLessThan(maxLng);
      expect(minLat).toBeLessThan(maxLat);
    }
  });

  it('sends every old unit somewhere, and every new unit comes from somewhere', () => {
    const oldWithLink = new Set(d.wardLinks.map((l) => l.oldCode));
    expect(d.legacyWards.filter((u) => !oldWithLink.has(u.code))).toEqual([]);
    const newWithLink = new Set(d.wardLinks.map((l) => l.newCode));
    expect(d.wards.filter((u) => !newWithLink.has(u.code))).toEqual([]);
    expect(new Set(d.provinceLinks.map((l) => l.oldCode)).size).toBe(63);
    expect(new Set(d.provinceLinks.map((l) => l.newCode)).size).toBe(34);
  });

  it('agrees with the old → new file: every pair it lists is a link (after code changes)', () => {
    const src = readAdminUnitsSource(projectRoot());
    const current = new Map(d.wards.filter((w) => w.mappingCode).map((w) => [w.mappingCode!, w.code]));
    const links = new Set(d.wardLinks.map((l) => `${l.oldCode}>${l.newCode}`));
    const missing: string[] = [];
    for (const p of src.splits)
      for (const u of [
        ...p.level3s.map((x) => ({ id: x.level3_id, s: x.splits })),
        ...(p.level2s ?? []).map((x) => ({ id: x.level2_id, s: x.splits })),
      ])
        for (const s of u.s) {
          const key = `${u.id}>${current.get(s.new_id) ?? s.new_id}`;
          if (!links.has(key)) missing.push(key);
        }
    expect(missing).toEqual([]);
  });

  it('re-points the links of units whose code changed after the mapping', () => {
    expect(
      d.wardLinks
        .filter((l) => l.mappingCode !== l.newCode)
        .map((l) => [l.oldCode, l.newCode, l.mappingCode]),
    ).toEqual([
      ['06886', '06978', '06970'],
      ['06970', '06978', '06970'],
      ['06973', '06978', '06970'],
      ['06982', '06978', '06970'],
      ['06988', '06978', '06970'],
      ['23938', '23938', '23737'],
    ]);
  });
});
