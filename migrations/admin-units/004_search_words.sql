-- The names' words split at every character other than a letter or a digit, as the query's words
-- are (upstream kit, wordVectorExpr): the 'simple' parser alone kept "tp.hcm" as one word and split
-- "19-5" into "19" and "-5". The indexes follow the expression the kit now writes.
DROP INDEX IF EXISTS admin_wards_name_ts;
DROP INDEX IF EXISTS admin_wards_full_name_ts;
DROP INDEX IF EXISTS admin_wards_full_name_en_ts;
DROP INDEX IF EXISTS admin_legacy_wards_name_ts;
DROP INDEX IF EXISTS admin_legacy_wards_full_name_ts;
CREATE INDEX IF NOT EXISTS admin_wards_name_words ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)), '[^a-z0-9]+', ' ', 'g')));
CREATE INDEX IF NOT EXISTS admin_wards_full_name_words ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)), '[^a-z0-9]+', ' ', 'g')));
CREATE INDEX IF NOT EXISTS admin_wards_full_name_en_words ON admin_wards
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name_en)), '[^a-z0-9]+', ' ', 'g')));
CREATE INDEX IF NOT EXISTS admin_legacy_wards_name_words ON admin_legacy_wards
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)), '[^a-z0-9]+', ' ', 'g')));
CREATE INDEX IF NOT EXISTS admin_legacy_wards_full_name_words ON admin_legacy_wards
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)), '[^a-z0-9]+', ' ', 'g')));
