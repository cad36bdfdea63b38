-- Ids are opaque (API reference, "Record identifiers": no other id can be derived from a given id).
-- 001 made them the statistics-office code behind a prefix, so tinh_79 gave away rgtinh_79 and every
-- other unit's id. Each is now a hash of the dataset and the code: as stable as the code, and a
-- stored unique column, so a detail lookup still uses an index.
DROP INDEX IF EXISTS admin_provinces_boundary_id;
DROP INDEX IF EXISTS admin_wards_boundary_id;
ALTER TABLE admin_provinces DROP COLUMN id;
ALTER TABLE admin_provinces ADD COLUMN id text GENERATED ALWAYS AS ('tinh_' || substr(md5('provinces:' || code), 1, 14)) STORED UNIQUE;
ALTER TABLE admin_provinces ADD COLUMN boundary_id text GENERATED ALWAYS AS ('rgtinh_' || substr(md5('province-boundaries:' || code), 1, 14)) STORED UNIQUE;
ALTER TABLE admin_wards DROP COLUMN id;
ALTER TABLE admin_wards ADD COLUMN id text GENERATED ALWAYS AS ('xa_' || substr(md5('wards:' || code), 1, 14)) STORED UNIQUE;
ALTER TABLE admin_wards ADD COLUMN boundary_id text GENERATED ALWAYS AS ('rgxa_' || substr(md5('ward-boundaries:' || code), 1, 14)) STORED UNIQUE;
ALTER TABLE admin_legacy_provinces DROP COLUMN id;
ALTER TABLE admin_legacy_provinces ADD COLUMN id text GENERATED ALWAYS AS ('tinhcu_' || substr(md5('legacy-provinces:' || code), 1, 14)) STORED UNIQUE;
ALTER TABLE admin_legacy_wards DROP COLUMN id;
ALTER TABLE admin_legacy_wards ADD COLUMN id text GENERATED ALWAYS AS ('xacu_' || substr(md5('legacy-wards:' || code), 1, 14)) STORED UNIQUE;
