-- A word written with an apostrophe inside (Ea H'leo, Đắk R'Lấp, Cư M'gar; unaccent makes ’ an ')
-- is also a word without it, as people type it both ways and as the admin units' and directory's
-- names have it (kit wordVectorExpr, joinApostrophes): "hleo" or "rlap" found no title that wrote
-- the name with its apostrophe. Done as 004 was: the column is rewritten, its indexes and the term
-- bitmaps rebuilt, in the migration's one transaction.
DROP INDEX IF EXISTS legal_documents_db_name_length_walk;
DROP INDEX IF EXISTS legal_documents_name_tsv;
ALTER TABLE legal_documents DROP COLUMN name_tsv;
ALTER TABLE legal_documents ADD COLUMN name_tsv tsvector GENERATED ALWAYS AS (
  to_tsvector('simple'::regconfig, regexp_replace(lower(public.f_unaccent(name)) || ' ' || replace(lower(public.f_unaccent(name)), '''', ''), '[^a-z0-9]+', ' ', 'g'))
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
