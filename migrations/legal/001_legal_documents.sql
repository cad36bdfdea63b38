-- Legal documents, their catalogs and relations (upstream "legal").
-- f_unaccent is shared by every upstream; the lock keeps sets migrating at once from racing on it.
SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'));
-- unaccent() is only STABLE (it reads a dictionary); pinning the dictionary makes it safe to index.
CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

CREATE TABLE IF NOT EXISTS legal_databases (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL,
  sort_order int NOT NULL
);

CREATE TABLE IF NOT EXISTS legal_document_types (id int PRIMARY KEY, name text NOT NULL, code text NOT NULL);
CREATE TABLE IF NOT EXISTS legal_fields (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE IF NOT EXISTS legal_agencies (id int PRIMARY KEY, name text NOT NULL, short_name text NOT NULL, level text NOT NULL);
CREATE TABLE IF NOT EXISTS legal_statuses (id int PRIMARY KEY, name text NOT NULL, name_en text NOT NULL);

CREATE TABLE IF NOT EXISTS legal_documents (
  id text PRIMARY KEY,
  code text NOT NULL,
  name text NOT NULL,
  database text NOT NULL REFERENCES legal_databases (id),
  type_id int NOT NULL REFERENCES legal_document_types (id),
  field_id int NOT NULL REFERENCES legal_fields (id),
  agency_id int NOT NULL REFERENCES legal_agencies (id),
  status_id int NOT NULL REFERENCES legal_statuses (id),
  issued_date date NOT NULL,
  effective_date date,
  expired_date date,
  source_url text,
  signer text,
  content_html text,
  content_en_html text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Folded words of the name for keyword search (kit "prefix" mode), stored so nothing runs
  -- unaccent per row, plus one lexeme '~db:<database>' (keywords never start with ~): then the GIN
  -- index alone answers "keywords in this database", and their exact count, without heap filters.
  name_tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('simple'::regconfig, lower(public.f_unaccent(name))) || array_to_tsvector(ARRAY['~db:' || database])
  ) STORED
);

-- "newest"/"oldest" pages and date ranges within a database.
CREATE INDEX IF NOT EXISTS legal_documents_db_issued ON legal_documents (database, issued_date DESC, id);
CREATE INDEX IF NOT EXISTS legal_documents_type ON legal_documents (type_id, issued_date DESC);
CREATE INDEX IF NOT EXISTS legal_documents_field ON legal_documents (field_id, issued_date DESC);
CREATE INDEX IF NOT EXISTS legal_documents_agency ON legal_documents (agency_id, issued_date DESC);
CREATE INDEX IF NOT EXISTS legal_documents_status ON legal_documents (status_id, issued_date DESC);
-- Keyword search: every word a prefix of a word of the name. GIN answers large match sets (and
-- their exact count) from posting lists; the length index serves "relevance" pages of very common
-- words by walking the shortest names first instead of sorting every match.
CREATE INDEX IF NOT EXISTS legal_documents_name_tsv ON legal_documents USING gin (name_tsv);
CREATE INDEX IF NOT EXISTS legal_documents_db_name_length ON legal_documents (database, length(name), issued_date DESC, id DESC);
-- Substring search on the folded text (same expression as the kit's foldedExpr): document numbers,
-- and the trigram alternative the search benchmark compares against.
CREATE INDEX IF NOT EXISTS legal_documents_name_trgm ON legal_documents USING gin (lower(public.f_unaccent(name)) public.gin_trgm_ops);
CREATE INDEX IF NOT EXISTS legal_documents_code_trgm ON legal_documents USING gin (lower(public.f_unaccent(code)) public.gin_trgm_ops);
CREATE INDEX IF NOT EXISTS legal_agencies_name_trgm ON legal_agencies USING gin (lower(public.f_unaccent(name)) public.gin_trgm_ops);

-- kind 'replaces': from_id replaces to_id; kind 'cites': from_id cites to_id. No foreign keys, so
-- an import may name a document that a later file brings.
CREATE TABLE IF NOT EXISTS legal_document_relations (
  from_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('replaces', 'cites')),
  to_id text NOT NULL,
  PRIMARY KEY (from_id, kind, to_id)
);
CREATE INDEX IF NOT EXISTS legal_document_relations_to ON legal_document_relations (to_id, kind);

CREATE TABLE IF NOT EXISTS legal_seed_state (id int PRIMARY KEY, seeded_at timestamptz NOT NULL DEFAULT now(), options jsonb NOT NULL);
