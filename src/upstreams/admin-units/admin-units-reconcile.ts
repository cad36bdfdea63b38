import type { AdminUnitsSource, BoundaryFeature, RawMerge } from './admin-units-source';
import { geometryBBox } from './geo-shapes';
import type { AdminUnitsData, LegacyUnitRow, LinkRow, MappingNote, NewUnitRow } from './admin-units-rows';
import {
  LEGACY_WARD_LEVELS,
  PROVINCE_LEVELS,
  WARD_LEVELS,
  levelOf,
  spellingKey,
  splitUnitName,
  tidyFullName,
} from './unit-names';

interface MappingUnit {
  code: string;
  provinceCode: string | null;
  fullName: string;
  merges: RawMerge[];
}

interface CurrentUnit {
  code: string;
  provinceCode: string | null;
  fullName: string;
}

interface Match {
  mapping: MappingUnit;
  notes: MappingNote[];
  spellingOnly: boolean;
}

const bareKey = (fullName: string): string => spellingKey(splitUnitName(fullName).name);

function compare(cur: CurrentUnit, m: MappingUnit): Match {
  const notes: MappingNote[] = [];
  if (cur.code !== m.code) notes.push('code_changed');
  if (splitUnitName(cur.fullName).level !== splitUnitName(m.fullName).level) notes.push('level_changed');
  if (bareKey(cur.fullName) !== bareKey(m.fullName)) notes.push('renamed');
  const spellingOnly = notes.length === 0 && tidyFullName(cur.fullName) !== tidyFullName(m.fullName);
  return { mapping: m, notes, spellingOnly };
}

/**
 * Pairs each current unit with its unit in the 2025 mapping: by code, else (the code was changed
 * later, e.g. Xã Ba Chẽ 06970 → 06978) by name within the same province when exactly one unused
 * mapping unit has it.
 */
function matchUnits(current: readonly CurrentUnit[], mapping: readonly MappingUnit[]): Map<string, Match> {
  const byCode = new Map(mapping.map((m) => [m.code, m]));
  const out = new Map<string, Match>();
  const used = new Set<string>();
  for (const cur of current) {
    const m = byCode.get(cur.code);
    if (m && m.provinceCode === cur.provinceCode) {
      out.set(cur.code, compare(cur, m));
      used.add(m.code);
    }
  }
  const spare = new Map<string, MappingUnit[]>();
  for (const m of mapping) {
    if (used.has(m.code)) continue;
    const k = `${m.provinceCode ?? ''}|${bareKey(m.fullName)}`;
    spare.set(k, [...(spare.get(k) ?? []), m]);
  }
  for (const cur of current) {
    if (out.has(cur.code)) continue;
    const found = spare.get(`${cur.provinceCode ?? ''}|${bareKey(cur.fullName)}`) ?? [];
    if (found.length === 1) out.set(cur.code, compare(cur, found[0]!));
  }
  return out;
}

function shapeIndex(features: readonly BoundaryFeature[]): Map<string, BoundaryFeature> {
  return new Map(features.map((f) => [f.properties.code, f]));
}

function newUnitRow(
  u: { Code: string; Name: string; NameEn: string; FullName: string; FullNameEn: string; CodeName: string },
  provinceCode: string | null,
  level: string,
  shape: BoundaryFeature | undefined,
  match: Match | undefined,
): NewUnitRow {
  const notes: MappingNote[] = match ? match.notes : ['not_in_mapping'];
  const differs = match !== undefined && notes.length > 0;
  return {
    code: u.Code,
    provinceCode,
    name: u.Name,
    nameEn: u.NameEn,
    fullName: tidyFullName(u.FullName),
    fullNameEn: u.FullNameEn,
    slug: u.CodeName,
    level,
    areaKm2: shape?.properties.areaKm2 ?? null,
    bbox: shape ? geometryBBox(shape.geometry) : null,
    geometry: shape?.geometry ?? null,
    mappingCode: differs ? match.mapping.code : null,
    mappingFullName: differs ? match.mapping.fullName : null,
    notes,
  };
}

/** Links of the matched mapping units, re-pointed at current codes; duplicates collapse. */
function links(
  mapping: readonly MappingUnit[],
  matches: Map<string, Match>,
  oldCodes: ReadonlySet<string>,
): { rows: LinkRow[]; unmatched: number; dropped: number } {
  const currentOf = new Map([...matches].map(([code, m]) => [m.mapping.code, code]));
  const seen = new Set<string>();
  const rows: LinkRow[] = [];
  let unmatched = 0;
  let dropped = 0;
  for (const m of mapping) {
    const newCode = currentOf.get(m.code);
    if (newCode === undefined) {
      unmatched++;
      dropped += m.merges.length;
      continue;
    }
    for (const x of m.merges) {
      // An old code missing from the old → new file has no old unit to hang the link on.
      if (!oldCodes.has(x.old_id)) {
        dropped++;
        continue;
      }
      const key = `${x.old_id}|${newCode}`;
      if (seen.has(key)) continue;
      seen.add(key);
      rows.push({ oldCode: x.old_id, newCode, coverage: x.type, mappingCode: m.code });
    }
  }
  return { rows, unmatched, dropped };
}

/** Turns the shipped files into table rows, with every disagreement between them named and counted. */
export function reconcileAdminUnits(src: AdminUnitsSource): AdminUnitsData {
  const provinceShapes = shapeIndex(src.provinceShapes);
  const wardShapes = shapeIndex(src.wardShapes);

  const legacyProvinces: LegacyUnitRow[] = src.splits.map((p) => ({
    code: p.level1_id,
    provinceCode: null,
    name: splitUnitName(p.name).name,
    fullName: tidyFullName(p.name),
    level: levelOf(p.name, PROVINCE_LEVELS),
  }));
  const legacyWards: LegacyUnitRow[] = src.splits.flatMap((p) =>
    [
      ...(p.level2s ?? []).map((u) => ({ code: u.level2_id, name: u.name })),
      ...p.level3s.map((u) => ({ code: u.level3_id, name: u.name })),
    ].map((u) => ({
      code: u.code,
      provinceCode: p.level1_id,
      name: splitUnitName(u.name).name,
      fullName: tidyFullName(u.name),
      level: levelOf(u.name, LEGACY_WARD_LEVELS),
    })),
  );

  const mapProvinces: MappingUnit[] = src.merges.map((p) => ({
    code: p.level1_id,
    provinceCode: null,
    fullName: p.name,
    merges: p.merges,
  }));
  const mapWards: MappingUnit[] = src.merges.flatMap((p) =>
    p.level2s.map((w) => ({
      code: w.level2_id,
      provinceCode: p.level1_id,
      fullName: w.name,
      merges: w.merges,
    })),
  );
  const curProvinces = src.units.map((p) => ({ code: p.Code, provinceCode: null, fullName: p.FullName }));
  const curWards = src.units.flatMap((p) =>
    p.Wards.map((w) => ({ code: w.Code, provinceCode: p.Code, fullName: w.FullName })),
  );
  const provinceMatches = matchUnits(curProvinces, mapProvinces);
  const wardMatches = matchUnits(curWards, mapWards);

  const provinces = src.units.map((p) =>
    newUnitRow(
      p,
      null,
      levelOf(p.FullName, PROVINCE_LEVELS),
      provinceShapes.get(p.Code),
      provinceMatches.get(p.Code),
    ),
  );
  const wards = src.units.flatMap((p) =>
    p.Wards.map((w) =>
      newUnitRow(
        w,
        p.Code,
        levelOf(w.FullName, WARD_LEVELS),
        wardShapes.get(w.Code),
        wardMatches.get(w.Code),
      ),
    ),
  );

  const pl = links(mapProvinces, provinceMatches, new Set(legacyProvinces.map((u) => u.code)));
  const wl = links(mapWards, wardMatches, new Set(legacyWards.map((u) => u.code)));
  const targets = new Map<string, number>();
  for (const l of wl.rows) targets.set(l.oldCode, (targets.get(l.oldCode) ?? 0) + 1);

  const all = [...provinces, ...wards];
  const notes: Record<MappingNote, number> = {
    code_changed: 0,
    level_changed: 0,
    renamed: 0,
    not_in_mapping: 0,
  };
  for (const u of all) for (const n of u.notes) notes[n]++;
  const spellingOnly = [...provinceMatches.values(), ...wardMatches.values()].filter(
    (m) => m.spellingOnly,
  ).length;

  return {
    provinces,
    wards,
    legacyProvinces,
    legacyWards,
    provinceLinks: pl.rows,
    wardLinks: wl.rows,
    stats: {
      provinces: provinces.length,
      wards: wards.length,
      legacy_provinces: legacyProvinces.length,
      legacy_wards: legacyWards.length,
      legacy_districts_without_communes: legacyWards.filter((u) => u.level === 'huyen').length,
      province_links: pl.rows.length,
      ward_links: wl.rows.length,
      partial_ward_links: wl.rows.filter((l) => l.coverage === 'partial').length,
      legacy_wards_split: [...targets.values()].filter((n) => n > 1).length,
      amended_provinces: provinces.filter((u) => u.notes.length > 0).length,
      amended_wards: wards.filter((u) => u.notes.length > 0).length,
      notes,
      spelling_only_differences: spellingOnly,
      mapping_units_unmatched: pl.unmatched + wl.unmatched,
      links_dropped: pl.dropped + wl.dropped,
    },
  };
}
