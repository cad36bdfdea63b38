-- "newest" orders by issued_date DESC, id DESC and "oldest" by issued_date, id: the index of 001
-- (id ascending) matched neither direction, so every page sorted each day's documents again
-- (500k synthetic rows, page 101: 3.5 ms → 1.2 ms). This one is read forward for newest, backward
-- for oldest, and serves the date ranges as the old one did. The old one is not dropped here:
-- migrations only add (src/db/migrate.ts), and a DROP would hold every reader of the table behind
-- its lock while a rolling upgrade runs; a later release can drop legal_documents_db_issued.
CREATE INDEX IF NOT EXISTS legal_documents_db_issued_id ON legal_documents (database, issued_date DESC, id DESC);
