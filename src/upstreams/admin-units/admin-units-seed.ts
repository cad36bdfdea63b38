import type { Db, Queryable } from '../../db/db';
import { insertRows } from '../../upstream-kit';
import { projectRoot } from '../../util/project-root';
import { reconcileAdminUnits } from './admin-units-reconcile';
import type { AdminUnitsData, LegacyUnitRow, LinkRow, NewUnitRow } from './admin-units-rows';
import { readAdminUnitsSource } from './admin-units-source';

const NEW_COLUMNS = [
  'code',
  'name',
  'name_en',
  'full_name',
  'full_name_en',
  'slug',
  'level',
  'area_km2',
  'min_lng',
  'min_lat',
  'max_lng',
  'max_lat',
  'geometry',
  'mapping_code',
  'mapping_full_name',
  'mapping_notes',
] as const;

const newValues = (u: NewUnitRow): unknown[] => [
  u.code,
  u.name,
  u.nameEn,
  u.fullName,
  u.fullNameEn,
  u.slug,
  u.level,
  u.areaKm2,
  ...(u.bbox ?? [null, null, null, null]),
  // The object, not its text: both drivers serialise it for the json column.
  u.geometry,
  u.mappingCode,
  u.mappingFullName,
  u.notes,
];

const legacyValues = (u: LegacyUnitRow): unknown[] => [u.code, u.name, u.fullName, u.level];
const linkValues = (l: LinkRow): unknown[] => [l.oldCode, l.newCode, l.coverage, l.mappingCode];
const LINK_COLUMNS = ['old_code', 'new_code', 'coverage', 'mapping_code'];

/** Parents before children (foreign keys); boundaries make rows ~4 KB, so batches stay moderate. */
async function insertAll(tx: Queryable, d: AdminUnitsData): Promise<void> {
  await insertRows(tx, 'admin_provinces', NEW_COLUMNS, d.provinces.map(newValues), { batchSize: 10 });
  await insertRows(
    tx,
    'admin_wards',
    ['province_code', ...NEW_COLUMNS],
    d.wards.map((w) => [w.provinceCode, ...newValues(w)]),
    { batchSize: 250 },
  );
  await insertRows(
    tx,
    'admin_legacy_provinces',
    ['code', 'name', 'full_name', 'level'],
    d.legacyProvinces.map(legacyValues),
  );
  await insertRows(
    tx,
    'admin_legacy_wards',
    ['province_code', 'code', 'name', 'full_name', 'level'],
    d.legacyWards.map((u) => [u.provinceCode, ...legacyValues(u)]),
    { batchSize: 2000 },
  );
  await insertRows(tx, 'admin_province_links', LINK_COLUMNS, d.provinceLinks.map(linkValues));
  await insertRows(tx, 'admin_ward_links', LINK_COLUMNS, d.wardLinks.map(linkValues), { batchSize: 2000 });
}

/**
 * Loads the shipped reference data once per database, in one transaction; the marker row makes later
 * calls (every start, every replica) a single lookup. Real data, so SeedOptions (seed, scale) do not apply.
 */
export async function seedAdminUnits(db: Db, root: string = projectRoot()): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['seed:admin-units']);
    if ((await tx.query('SELECT 1 FROM admin_units_seed_state WHERE id = 1')).rows.length > 0) return;
    const data = reconcileAdminUnits(readAdminUnitsSource(root));
    await insertAll(tx, data);
    await tx.query('INSERT INTO admin_units_seed_state (id, options) VALUES (1, $1)', [
      JSON.stringify(data.stats),
    ]);
  });
}
