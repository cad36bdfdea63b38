-- q matches word prefixes of the name (upstream kit, wordVectorExpr): the folded name split at
-- every character other than a letter or a digit. A directory loaded with real data holds hundreds
-- of thousands of names; without this index every q read them all.
CREATE INDEX IF NOT EXISTS directory_organisations_name_words ON directory_organisations
  USING gin (to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)), '[^a-z0-9]+', ' ', 'g')));
