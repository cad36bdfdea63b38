-- The items' searched words, name terms and spelling key are stored (kit "prefix" mode: `vectors`,
-- `rankText`, `spelled`), as the directory's are. A search computed them for every item of the
-- catalogue (a short q matches most of it), and the computed words did not join a word written
-- with an apostrophe, as the stored ones do ("Ea H'leo" found by "hleo").
ALTER TABLE mof_catalog_items
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS code_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(code)) || ' ' || replace(lower(public.f_unaccent(code)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
