-- Exact totals of keyword searches without reading legal_documents (kit "prefix" mode, bitmapCount).
--
-- Counting matches through the name_tsv GIN index visits one heap page per match ("luat": 65,657
-- matches, ~27,000 pages), and GIN cannot answer a count index-only. Here every folded word
-- prefix ("l", "lu", "lua", "luat") of a document's name sets the document's bit in a 1,024-bit
-- block: (term, part = database, block = search_no / 1024). A query term is then one short list of
-- blocks, several terms are AND-ed block by block, and the total is the sum of bit_count — a few
-- hundred small rows per term however common the word, the same SQL on PostgreSQL and PGlite.
-- Triggers keep the blocks in step with every write (seed, importer, benchmark loader).

-- A dense, never-reused number per document: its bit. GENERATED ALWAYS so no writer can move it.
ALTER TABLE legal_documents ADD COLUMN IF NOT EXISTS search_no int GENERATED ALWAYS AS IDENTITY;

CREATE TABLE IF NOT EXISTS legal_search_blocks (
  term text NOT NULL,
  part text NOT NULL,
  block int NOT NULL,
  bits bit(1024) NOT NULL,
  PRIMARY KEY (term, part, block)
);

-- The terms a document can be found by: every prefix of the leading [a-z0-9] run of each lexeme of
-- name_tsv. Query terms are [a-z0-9]+ and match a lexeme when they start it (tsquery 'term:*'),
-- so these are exactly the terms that match; the '~db:' marker lexeme yields none.
CREATE OR REPLACE FUNCTION legal_search_terms(tsv tsvector) RETURNS SETOF text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT DISTINCT left(w, k) FROM (SELECT substring(u.lexeme FROM '^[a-z0-9]+') AS w FROM unnest(tsv) u) s, generate_series(1, length(s.w)) k WHERE s.w IS NOT NULL
$$;

-- Transition tables make the sync per statement: a 1,000-row INSERT is one grouped upsert, not
-- 40,000 single ones. ORDER BY gives concurrent writers the same lock order on shared blocks.
-- An UPDATE only touches rows whose words or database changed (importer upserts rewrite every row).
CREATE OR REPLACE FUNCTION legal_search_blocks_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE legal_search_blocks;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO legal_search_blocks AS b (term, part, block, bits)
      SELECT t.term, n.database, n.search_no >> 10, bit_or(set_bit(B'0'::bit(1024), n.search_no & 1023, 1))
      FROM new_docs n, legal_search_terms(n.name_tsv) t(term)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (term, part, block) DO UPDATE SET bits = b.bits | EXCLUDED.bits;
  ELSIF TG_OP = 'UPDATE' THEN
    WITH m AS (
      SELECT t.term, o.database AS part, o.search_no >> 10 AS block, bit_or(set_bit(B'0'::bit(1024), o.search_no & 1023, 1)) AS bits
      FROM old_docs o JOIN new_docs n ON n.search_no = o.search_no, legal_search_terms(o.name_tsv) t(term)
      WHERE (o.name_tsv, o.database) IS DISTINCT FROM (n.name_tsv, n.database)
      GROUP BY 1, 2, 3)
    UPDATE legal_search_blocks b SET bits = b.bits & ~m.bits FROM m WHERE (b.term, b.part, b.block) = (m.term, m.part, m.block);
    DELETE FROM legal_search_blocks b WHERE b.bits = B'0'::bit(1024) AND (b.term, b.part, b.block) IN (
      SELECT t.term, o.database, o.search_no >> 10
      FROM old_docs o JOIN new_docs n ON n.search_no = o.search_no, legal_search_terms(o.name_tsv) t(term)
      WHERE (o.name_tsv, o.database) IS DISTINCT FROM (n.name_tsv, n.database));
    INSERT INTO legal_search_blocks AS b (term, part, block, bits)
      SELECT t.term, n.database, n.search_no >> 10, bit_or(set_bit(B'0'::bit(1024), n.search_no & 1023, 1))
      FROM new_docs n JOIN old_docs o ON o.search_no = n.search_no, legal_search_terms(n.name_tsv) t(term)
      WHERE (o.name_tsv, o.database) IS DISTINCT FROM (n.name_tsv, n.database)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (term, part, block) DO UPDATE SET bits = b.bits | EXCLUDED.bits;
  ELSIF TG_OP = 'DELETE' THEN
    WITH m AS (
      SELECT t.term, o.database AS part, o.search_no >> 10 AS block, bit_or(set_bit(B'0'::bit(1024), o.search_no & 1023, 1)) AS bits
      FROM old_docs o, legal_search_terms(o.name_tsv) t(term)
      GROUP BY 1, 2, 3)
    UPDATE legal_search_blocks b SET bits = b.bits & ~m.bits FROM m WHERE (b.term, b.part, b.block) = (m.term, m.part, m.block);
    -- Blocks left empty count nothing; dropping them keeps the table as small as the data.
    DELETE FROM legal_search_blocks b WHERE b.bits = B'0'::bit(1024) AND (b.term, b.part, b.block) IN (
      SELECT t.term, o.database, o.search_no >> 10 FROM old_docs o, legal_search_terms(o.name_tsv) t(term));
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS legal_search_blocks_ins ON legal_documents;
DROP TRIGGER IF EXISTS legal_search_blocks_upd ON legal_documents;
DROP TRIGGER IF EXISTS legal_search_blocks_del ON legal_documents;
DROP TRIGGER IF EXISTS legal_search_blocks_trunc ON legal_documents;
CREATE TRIGGER legal_search_blocks_ins AFTER INSERT ON legal_documents REFERENCING NEW TABLE AS new_docs FOR EACH STATEMENT EXECUTE FUNCTION legal_search_blocks_sync();
CREATE TRIGGER legal_search_blocks_upd AFTER UPDATE ON legal_documents REFERENCING OLD TABLE AS old_docs NEW TABLE AS new_docs FOR EACH STATEMENT EXECUTE FUNCTION legal_search_blocks_sync();
CREATE TRIGGER legal_search_blocks_del AFTER DELETE ON legal_documents REFERENCING OLD TABLE AS old_docs FOR EACH STATEMENT EXECUTE FUNCTION legal_search_blocks_sync();
CREATE TRIGGER legal_search_blocks_trunc AFTER TRUNCATE ON legal_documents FOR EACH STATEMENT EXECUTE FUNCTION legal_search_blocks_sync();

-- Documents written before this migration.
INSERT INTO legal_search_blocks (term, part, block, bits)
  SELECT t.term, d.database, d.search_no >> 10, bit_or(set_bit(B'0'::bit(1024), d.search_no & 1023, 1))
  FROM legal_documents d, legal_search_terms(d.name_tsv) t(term)
  GROUP BY 1, 2, 3
  ON CONFLICT (term, part, block) DO NOTHING;
