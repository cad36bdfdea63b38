-- The relevance order compares q with the names' words (kit rankTextExpr): the folded name with
-- its punctuation a space and its apostrophes dropped, so "dran" is D'Ran whole and "van mieu quoc
-- tu giam" is Văn Miếu - Quốc Tử Giám whole, which the folded name (name_folded) kept apart.
-- name_folded stays while replicas of the release before read it.
ALTER TABLE admin_provinces
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_wards
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_legacy_provinces
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
ALTER TABLE admin_legacy_wards
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
