-- Shared electronic catalogues of the finance ministry (upstream "mof-catalogs"): one table, the
-- catalog column says which public list a row belongs to.
SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'));
-- unaccent() is only STABLE (it reads a dictionary); pinning the dictionary makes it safe to index.
CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

CREATE TABLE IF NOT EXISTS mof_catalog_items (
  id text PRIMARY KEY,
  catalog text NOT NULL,
  code text NOT NULL,
  name text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  sort_order int NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS mof_catalog_items_catalog ON mof_catalog_items (catalog, sort_order, code, id);
CREATE INDEX IF NOT EXISTS mof_catalog_items_code ON mof_catalog_items (catalog, code);

CREATE TABLE IF NOT EXISTS mof_seed_state (id int PRIMARY KEY, seeded_at timestamptz NOT NULL DEFAULT now(), options jsonb NOT NULL);
