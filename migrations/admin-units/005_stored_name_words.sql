-- The searched names' folded text, spelling key and words are stored (kit "prefix" mode:
-- `folded`, `spelled`, `vectors`): the relevance order compares the name and tests its words on
-- every matching row, and a short q ("xa", "phuong") matches most of a table, so folding each row
-- again at each request took over 100 ms a search. The GIN indexes move to the stored words.
ALTER TABLE admin_provinces
  ADD COLUMN IF NOT EXISTS name_folded text GENERATED ALWAYS AS (lower(public.f_unaccent(name))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)) || ' ' || replace(lower(public.f_unaccent(full_name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_en_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name_en)) || ' ' || replace(lower(public.f_unaccent(full_name_en)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_wards
  ADD COLUMN IF NOT EXISTS name_folded text GENERATED ALWAYS AS (lower(public.f_unaccent(name))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)) || ' ' || replace(lower(public.f_unaccent(full_name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_en_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name_en)) || ' ' || replace(lower(public.f_unaccent(full_name_en)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_legacy_provinces
  ADD COLUMN IF NOT EXISTS name_folded text GENERATED ALWAYS AS (lower(public.f_unaccent(name))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)) || ' ' || replace(lower(public.f_unaccent(full_name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_legacy_wards
  ADD COLUMN IF NOT EXISTS name_folded text GENERATED ALWAYS AS (lower(public.f_unaccent(name))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS full_name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(full_name)) || ' ' || replace(lower(public.f_unaccent(full_name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
DROP INDEX IF EXISTS admin_wards_name_words;
DROP INDEX IF EXISTS admin_wards_full_name_words;
DROP INDEX IF EXISTS admin_wards_full_name_en_words;
DROP INDEX IF EXISTS admin_legacy_wards_name_words;
DROP INDEX IF EXISTS admin_legacy_wards_full_name_words;
CREATE INDEX IF NOT EXISTS admin_wards_name_stored_words ON admin_wards USING gin (name_words);
CREATE INDEX IF NOT EXISTS admin_wards_full_name_stored_words ON admin_wards USING gin (full_name_words);
CREATE INDEX IF NOT EXISTS admin_wards_full_name_en_stored_words ON admin_wards USING gin (full_name_en_words);
CREATE INDEX IF NOT EXISTS admin_legacy_wards_name_stored_words ON admin_legacy_wards USING gin (name_words);
CREATE INDEX IF NOT EXISTS admin_legacy_wards_full_name_stored_words ON admin_legacy_wards USING gin (full_name_words);
