-- q matches word prefixes: to_tsvector('simple') over the folded names, the expression the upstream
-- kit writes for a `prefix` search (see admin-units-datasets.ts). One GIN index per searched column
-- of the two large tables (a search ORs them); the trigram indexes of the substring search go.
CREATE INDEX IF NOT EXISTS admin_wards_name_ts ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, lower(public.f_unaccent(name))));
CREATE INDEX IF NOT EXISTS admin_wards_full_name_ts ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, lower(public.f_unaccent(full_name))));
CREATE INDEX IF NOT EXISTS admin_wards_full_name_en_ts ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, lower(public.f_unaccent(full_name_en))));
CREATE INDEX IF NOT EXISTS admin_legacy_wards_name_ts ON admin_legacy_wards
  USING gin (to_tsvector('simple'::regconfig, lower(public.f_unaccent(name))));
CREATE INDEX IF NOT EXISTS admin_legacy_wards_full_name_ts ON admin_legacy_wards
  USING gin (to_tsvector('simple'::regconfig, lower(public.f_unaccent(full_name))));
DROP INDEX IF EXISTS admin_wards_name_trgm;
DROP INDEX IF EXISTS admin_legacy_wards_name_trgm;
