-- The agencies' searched words, name terms and spelling key are stored (kit "prefix" mode:
-- `vectors`, `rankText`, `spelled`), as the directory's are. A search computed them for every
-- agency (a short q matches most of the list), and the computed words did not join a word written
-- with an apostrophe, as the stored ones do: an imported "Ủy ban nhân dân huyện Đắk R'Lấp" was not
-- found by "rlap".
ALTER TABLE legal_agencies
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS name_spelled text GENERATED ALWAYS AS (public.f_spelling(name)) STORED,
  ADD COLUMN IF NOT EXISTS name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED,
  ADD COLUMN IF NOT EXISTS short_name_words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(short_name)) || ' ' || replace(lower(public.f_unaccent(short_name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
