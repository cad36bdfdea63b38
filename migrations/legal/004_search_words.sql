-- A name's words split at every character other than a letter or a digit, as the query's words
-- are (kit "prefix" mode): the 'simple' parser kept "86/1995/hs-pt", "tp.hcm" and "4.0" as single
-- words and split "covid-19" into "covid" and "-19", so "hs", "hcm" or "19" never started a word
-- and a court judgment could not be found by its own title.
DROP INDEX IF EXISTS legal_documents_db_name_length_walk;
DROP INDEX IF EXISTS legal_documents_name_tsv;
ALTER TABLE legal_documents DROP COLUMN name_tsv;
ALTER TABLE legal_documents ADD COLUMN name_tsv tsvector GENERATED ALWAYS AS (
  to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)), '[^a-z0-9]+', ' ', 'g'))
    || array_to_tsvector(ARRAY['~db:' || database])
) STORED;
CREATE INDEX IF NOT EXISTS legal_documents_name_tsv ON legal_documents USING gin (name_tsv);
CREATE INDEX IF NOT EXISTS legal_documents_db_name_length_walk ON legal_documents (database, length(name), issued_date DESC, id DESC) INCLUDE (name, name_tsv);
-- A table rewrite fires no row triggers: the term bitmaps are rebuilt from the new words.
TRUNCATE legal_search_blocks;
INSERT INTO legal_search_blocks (term, part, block, bits)
  SELECT t.term, d.database, d.search_no >> 10, bit_or(set_bit(B'0'::bit(1024), d.search_no & 1023, 1))
  FROM legal_documents d, legal_search_terms(d.name_tsv) t(term)
  GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
