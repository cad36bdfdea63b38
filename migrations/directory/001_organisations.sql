-- The organisation directory (upstream "directory"): one table, one row per organisation, the
-- dataset column says which public list it belongs to.
SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'));
-- unaccent() is only STABLE (it reads a dictionary); pinning the dictionary makes it safe to index.
CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

CREATE TABLE IF NOT EXISTS directory_organisations (
  id text PRIMARY KEY,
  dataset text NOT NULL,
  tax_code text NOT NULL,
  name text NOT NULL,
  address text NOT NULL,
  -- Empty strings when the address could not be normalised (the reference says "empty").
  province_code text NOT NULL DEFAULT '',
  province_name text NOT NULL DEFAULT '',
  ward_code text NOT NULL DEFAULT '',
  ward_name text NOT NULL DEFAULT '',
  is_active boolean NOT NULL,
  company_type text NOT NULL,
  status_id int NOT NULL,
  cert_date date,
  updated_at timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS directory_organisations_dataset_name ON directory_organisations (dataset, name, id);
CREATE INDEX IF NOT EXISTS directory_organisations_tax_code ON directory_organisations (tax_code);
CREATE INDEX IF NOT EXISTS directory_organisations_province ON directory_organisations (dataset, province_code, ward_code);
CREATE INDEX IF NOT EXISTS directory_organisations_name_trgm ON directory_organisations USING gin (lower(public.f_unaccent(name)) public.gin_trgm_ops);

CREATE TABLE IF NOT EXISTS directory_seed_state (id int PRIMARY KEY, seeded_at timestamptz NOT NULL DEFAULT now(), options jsonb NOT NULL);
