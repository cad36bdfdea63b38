-- The name's folded text, spelling key and words are stored (kit "prefix" mode: `folded`,
-- `spelled`, `vectors`): a short q matches most of a list, and the relevance order folded and split
-- every matching name again at each request. Adding the columns rewrites the table once; the GIN
-- index moves to the stored words.
ALTER TABLE directory_organisations
  ADD COLUMN IF NOT EXISTS name_folded text GENERATED ALWAYS AS (lower(public.f_unaccent(name))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
DROP INDEX IF EXISTS directory_organisations_name_words;
CREATE INDEX IF NOT EXISTS directory_organisations_name_stored_words ON directory_organisations USING gin (name_words);
