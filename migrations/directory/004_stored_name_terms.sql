-- The relevance order compares q with the name's words (kit rankTextExpr): the folded name with
-- its punctuation a space and its apostrophes dropped ("Công ty TNHH A.B.C" → "cong ty tnhh a b c",
-- as q's words are). name_folded stays while replicas of the release before read it.
ALTER TABLE directory_organisations
  ADD COLUMN IF NOT EXISTS name_terms text GENERATED ALWAYS AS (btrim(regexp_replace(replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))) STORED;
