import type { DatasetSpec, FilterSpec } from '../../upstream-kit';
import { eq, pointOf, wordPrefixSearch } from '../../upstream-kit';
import {
  amended,
  bbox,
  mapping2025,
  notes,
  provincesCameFrom,
  provincesWentTo,
  unitRef,
  wardsCameFrom,
  wardsWentTo,
} from './admin-units-sql';
import type { AdminBoundaries, BoundaryIndex } from './boundary-index';
import { LEGACY_WARD_LEVELS, PROVINCE_LEVELS, WARD_LEVELS } from './unit-names';
import { PLACE_ALIASES } from '../search-aliases';

const code = (column: string): FilterSpec => eq(column, { type: 'string', maxLength: 10 });
const level = (column: string, values: readonly string[]): FilterSpec => eq(column, { type: 'enum', values });
const flag = (where: (p: string) => string): FilterSpec => ({ param: { type: 'boolean' }, where });
const linked = (sql: (p: string) => string): FilterSpec => ({
  param: { type: 'string', maxLength: 10 },
  where: sql,
});

/**
 * What a q may start with besides the name: the unit's kind, spelled out (with or without its
 * diacritics) or abbreviated (P., TT., ĐK.), to the words full names use.
 */
const UNIT_KINDS: Readonly<Record<string, string>> = {
  phường: 'phuong',
  xã: 'xa',
  'thị trấn': 'thi tran',
  'đặc khu': 'dac khu',
  tỉnh: 'tinh',
  'thành phố': 'thanh pho',
  huyện: 'huyen',
  p: 'phuong',
  x: 'xa',
  tt: 'thi tran',
  tp: 'thanh pho',
  đk: 'dac khu',
};

/**
 * q: every word starts a word of the name, the Vietnamese full name or the English one (see
 * wordPrefixSearch): "phu an" finds Phú An first, not every Phường with an "an" somewhere.
 */
const byName = (alias: string, english: boolean): Pick<DatasetSpec, 'search' | 'sort' | 'defaultOrder'> => {
  const columns = ['name', 'full_name', ...(english ? ['full_name_en'] : [])];
  // Stored by migrations/admin-units/005_stored_name_words.sql and 006_stored_name_terms.sql.
  return wordPrefixSearch(
    columns.map((c) => `${alias}.${c}`),
    `${alias}.code`,
    {
      rankText: `${alias}.name_terms`,
      spelled: [`${alias}.name_spelled`],
      vectors: columns.map((c) => `${alias}.${c}_words`),
      leadingWords: UNIT_KINDS,
      aliases: PLACE_ALIASES,
    },
  );
};

/** The 34 provinces after 1 July 2025. */
export const provinces: DatasetSpec = {
  path: 'provinces',
  idPrefix: 'tinh_',
  from: 'admin_provinces p',
  idColumn: 'p.id',
  listFields: {
    id: 'p.id',
    code: 'p.code',
    name: 'p.name',
    name_en: 'p.name_en',
    full_name: 'p.full_name',
    full_name_en: 'p.full_name_en',
    level: 'p.level',
    ward_count: '(SELECT count(*)::int FROM admin_wards w WHERE w.province_code = p.code)',
    mapping_notes: notes('p'),
  },
  detailFields: {
    area_km2: 'p.area_km2',
    bbox: bbox('p'),
    came_from: provincesCameFrom('p'),
    mapping_2025: mapping2025('p'),
  },
  filters: {
    code: code('p.code'),
    level: level('p.level', PROVINCE_LEVELS),
    amended: flag(amended('p')),
  },
  ...byName('p', true),
};

/** The 3,321 wards, communes and special zones after 1 July 2025. */
export const wards: DatasetSpec = {
  path: 'wards',
  idPrefix: 'xa_',
  from: 'admin_wards w JOIN admin_provinces p ON p.code = w.province_code',
  idColumn: 'w.id',
  listFields: {
    id: 'w.id',
    code: 'w.code',
    name: 'w.name',
    name_en: 'w.name_en',
    full_name: 'w.full_name',
    full_name_en: 'w.full_name_en',
    level: 'w.level',
    province: unitRef('p'),
    mapping_notes: notes('w'),
  },
  detailFields: {
    area_km2: 'w.area_km2',
    bbox: bbox('w'),
    came_from: wardsCameFrom('w'),
    mapping_2025: mapping2025('w'),
  },
  filters: {
    code: code('w.code'),
    province_code: code('w.province_code'),
    level: level('w.level', WARD_LEVELS),
    amended: flag(amended('w')),
  },
  ...byName('w', true),
};

/** The 63 provinces before 1 July 2025, each with the new province it became part of. */
export const legacyProvinces: DatasetSpec = {
  path: 'legacy-provinces',
  idPrefix: 'tinhcu_',
  from: 'admin_legacy_provinces o',
  idColumn: 'o.id',
  listFields: {
    id: 'o.id',
    code: 'o.code',
    name: 'o.name',
    full_name: 'o.full_name',
    level: 'o.level',
    ward_count: '(SELECT count(*)::int FROM admin_legacy_wards x WHERE x.province_code = o.code)',
    went_to: provincesWentTo('o'),
  },
  filters: {
    code: code('o.code'),
    level: level('o.level', PROVINCE_LEVELS),
    new_province_code: linked(
      (p) =>
        `EXISTS (SELECT 1 FROM admin_province_links l WHERE l.old_code = o.code AND l.new_code = ${p}::text)`,
    ),
  },
  ...byName('o', false),
};

/** The communes before 1 July 2025 (and five island districts that had none), with their new ward(s). */
export const legacyWards: DatasetSpec = {
  path: 'legacy-wards',
  idPrefix: 'xacu_',
  from: 'admin_legacy_wards o JOIN admin_legacy_provinces op ON op.code = o.province_code',
  idColumn: 'o.id',
  listFields: {
    id: 'o.id',
    code: 'o.code',
    name: 'o.name',
    full_name: 'o.full_name',
    level: 'o.level',
    province: unitRef('op'),
    went_to: wardsWentTo('o'),
  },
  filters: {
    code: code('o.code'),
    province_code: code('o.province_code'),
    level: level('o.level', LEGACY_WARD_LEVELS),
    new_ward_code: linked(
      (p) =>
        `EXISTS (SELECT 1 FROM admin_ward_links l WHERE l.old_code = o.code AND l.new_code = ${p}::text)`,
    ),
    new_province_code: linked(
      (p) => `EXISTS (SELECT 1 FROM admin_ward_links l JOIN admin_wards n ON n.code = l.new_code
        WHERE l.old_code = o.code AND n.province_code = ${p}::text)`,
    ),
  },
  ...byName('o', false),
};

/**
 * `point=lat,lng`: the units whose boundary contains it, found in the in-memory index and handed to
 * SQL as a code list ('' at sea, which matches nothing).
 */
function pointFilter(
  column: string,
  boundaries: () => Promise<AdminBoundaries>,
  pick: (b: AdminBoundaries) => BoundaryIndex,
): FilterSpec {
  return {
    param: { type: 'point' },
    resolve: async (v) =>
      pick(await boundaries())
        .codesAt(pointOf(v))
        .join(','),
    where: (p) => `${column} = ANY(string_to_array(${p}::text, ','))`,
  };
}

/** Province and ward boundaries with point lookup; geometry (GeoJSON) in detail only. */
export function boundaryDatasets(boundaries: () => Promise<AdminBoundaries>): DatasetSpec[] {
  const provinceBoundaries: DatasetSpec = {
    path: 'province-boundaries',
    idPrefix: 'rgtinh_',
    from: 'admin_provinces p',
    idColumn: 'p.boundary_id',
    listFields: {
      id: 'p.boundary_id',
      code: 'p.code',
      name: 'p.name',
      full_name: 'p.full_name',
      level: 'p.level',
      unit_id: 'p.id',
      area_km2: 'p.area_km2',
      bbox: bbox('p'),
    },
    detailFields: { geometry: 'p.geometry' },
    filters: {
      point: pointFilter('p.code', boundaries, (b) => b.provinces),
      code: code('p.code'),
    },
    ...byName('p', true),
  };
  const wardBoundaries: DatasetSpec = {
    path: 'ward-boundaries',
    idPrefix: 'rgxa_',
    from: 'admin_wards w JOIN admin_provinces p ON p.code = w.province_code',
    idColumn: 'w.boundary_id',
    listFields: {
      id: 'w.boundary_id',
      code: 'w.code',
      name: 'w.name',
      full_name: 'w.full_name',
      level: 'w.level',
      province: unitRef('p'),
      unit_id: 'w.id',
      area_km2: 'w.area_km2',
      bbox: bbox('w'),
    },
    detailFields: { geometry: 'w.geometry' },
    filters: {
      point: pointFilter('w.code', boundaries, (b) => b.wards),
      code: code('w.code'),
      province_code: code('w.province_code'),
    },
    ...byName('w', true),
    // A boundary is large: a list always narrows to a point, a code, a province or a name.
    requireOneOf: ['point', 'code', 'province_code', 'q'],
  };
  return [provinceBoundaries, wardBoundaries];
}

export function adminUnitsDatasets(boundaries: () => Promise<AdminBoundaries>): DatasetSpec[] {
  return [provinces, wards, legacyProvinces, legacyWards, ...boundaryDatasets(boundaries)];
}
