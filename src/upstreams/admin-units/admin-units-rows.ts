import type { BBox, Geometry } from './geo-shapes';

// The rows the reconciliation of the admin-units sources produces, as the seed writes them to the tables.

/**
 * How the 2025 mapping (resolutions of June 2025) differs from the current unit list (amended up to
 * 30/2026/QH16). Spelling alone (Hoà/Hòa, "xã"/"Xã") is not a difference.
 */
export type MappingNote = 'code_changed' | 'level_changed' | 'renamed' | 'not_in_mapping';
export type Coverage = 'full' | 'partial';

export interface NewUnitRow {
  code: string;
  /** Null for provinces. */
  provinceCode: string | null;
  name: string;
  nameEn: string;
  fullName: string;
  fullNameEn: string;
  slug: string;
  level: string;
  areaKm2: number | null;
  bbox: BBox | null;
  geometry: Geometry | null;
  /** The unit as the 2025 mapping writes it, kept only when it differs (see notes). */
  mappingCode: string | null;
  mappingFullName: string | null;
  notes: MappingNote[];
}

export interface LegacyUnitRow {
  code: string;
  /** Old province of a commune or district; null for provinces. */
  provinceCode: string | null;
  name: string;
  fullName: string;
  level: string;
}

export interface LinkRow {
  oldCode: string;
  newCode: string;
  coverage: Coverage;
  /** The new code as the 2025 mapping gives it (differs from newCode where the code changed since). */
  mappingCode: string;
}

export interface ReconcileStats {
  provinces: number;
  wards: number;
  legacy_provinces: number;
  legacy_wards: number;
  legacy_districts_without_communes: number;
  province_links: number;
  ward_links: number;
  partial_ward_links: number;
  legacy_wards_split: number;
  amended_provinces: number;
  amended_wards: number;
  notes: Record<MappingNote, number>;
  spelling_only_differences: number;
  mapping_units_unmatched: number;
  links_dropped: number;
}

export interface AdminUnitsData {
  provinces: NewUnitRow[];
  wards: NewUnitRow[];
  legacyProvinces: LegacyUnitRow[];
  legacyWards: LegacyUnitRow[];
  provinceLinks: LinkRow[];
  wardLinks: LinkRow[];
  stats: ReconcileStats;
}
