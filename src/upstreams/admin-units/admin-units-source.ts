import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Geometry } from './geo-shapes';

/** data/vn-admin-units/units-2026.json: the units after 1 July 2025, as amended up to 30/2026/QH16. */
export interface RawProvince {
  Code: string;
  Name: string;
  NameEn: string;
  FullName: string;
  FullNameEn: string;
  CodeName: string;
  Wards: RawWard[];
}

export interface RawWard {
  Code: string;
  Name: string;
  NameEn: string;
  FullName: string;
  FullNameEn: string;
  CodeName: string;
  ProvinceCode: string;
}

/** A GeoJSON feature of provinces-2025.geojson or wards-2025-simplified.geojson (id = unit code). */
export interface BoundaryFeature {
  id: string;
  geometry: Geometry;
  properties: { code: string; areaKm2: number };
}

/** splits-old-to-new.json: each pre-2025 province and commune (or commune-less district) → new unit(s). */
export interface RawSplitProvince {
  level1_id: string;
  name: string;
  splits: { new_id: string; name: string }[];
  /** Island districts without communes (Bạch Long Vĩ, Cồn Cỏ, Hoàng Sa, Lý Sơn, Côn Đảo). */
  level2s?: RawSplitUnit<'level2_id'>[];
  level3s: RawSplitUnit<'level3_id'>[];
}

export type RawSplitUnit<K extends string> = Record<K, string> & {
  name: string;
  splits: { new_id: string; name: string }[];
};

/** merges-new-to-old.json: each new province and ward ← the old units it came from, wholly or partly. */
export interface RawMergeProvince {
  level1_id: string;
  name: string;
  merges: RawMerge[];
  level2s: { level2_id: string; name: string; merges: RawMerge[] }[];
}

export interface RawMerge {
  old_id: string;
  name: string;
  type: 'full' | 'partial';
}

export interface AdminUnitsSource {
  units: RawProvince[];
  provinceShapes: BoundaryFeature[];
  wardShapes: BoundaryFeature[];
  splits: RawSplitProvince[];
  merges: RawMergeProvince[];
}

function readJson<T>(root: string, ...path: string[]): T {
  return JSON.parse(readFileSync(join(root, 'data', ...path), 'utf8')) as T;
}

/** Reads the shipped files (MIT-licensed, see data/README.md). Trusted input: shapes are not re-validated. */
export function readAdminUnitsSource(root: string): AdminUnitsSource {
  return {
    units: readJson<RawProvince[]>(root, 'vn-admin-units', 'units-2026.json'),
    provinceShapes: readJson<{ features: BoundaryFeature[] }>(
      root,
      'vn-admin-units',
      'provinces-2025.geojson',
    ).features,
    wardShapes: readJson<{ features: BoundaryFeature[] }>(
      root,
      'vn-admin-units',
      'wards-2025-simplified.geojson',
    ).features,
    splits: readJson<{ data: RawSplitProvince[] }>(
      root,
      'vn-admin-units-2025-mapping',
      'splits-old-to-new.json',
    ).data,
    merges: readJson<{ data: RawMergeProvince[] }>(
      root,
      'vn-admin-units-2025-mapping',
      'merges-new-to-old.json',
    ).data,
  };
}
