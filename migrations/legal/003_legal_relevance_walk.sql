-- "relevance" pages walk (database, length(name), issued_date, id) and test each name for the
-- keywords. Reading the heap for that test cost one page per row walked ("xu phat vi pham": 43,000
-- pages, the matches are long names). With name and name_tsv in the index, the walk is an
-- index-only scan (~40 rows per page), and the page's full rows are fetched by id afterwards
-- (DatasetSpec.keysFirst).
CREATE INDEX IF NOT EXISTS legal_documents_db_name_length_walk ON legal_documents (database, length(name), issued_date DESC, id DESC) INCLUDE (name, name_tsv);
DROP INDEX IF EXISTS legal_documents_db_name_length;
