-- Administrative units before and after the 2025 reorganisation (upstream "admin-units"): real data
-- from data/vn-admin-units and data/vn-admin-units-2025-mapping, loaded once by the upstream's seed.
SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'));
-- unaccent() is only STABLE (it reads a dictionary); pinning the dictionary makes it safe to index.
CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;

-- The 34 provinces and 3,321 wards after 1 July 2025 (as amended up to 30/2026/QH16). Ids are the
-- official statistics-office codes behind a prefix, stored so detail lookups use the unique index.
-- mapping_* keep how the 2025 mapping wrote the unit where it differs (mapping_notes says how).
CREATE TABLE IF NOT EXISTS admin_provinces (
  code text PRIMARY KEY,
  id text GENERATED ALWAYS AS ('tinh_' || code) STORED UNIQUE,
  name text NOT NULL,
  name_en text NOT NULL,
  full_name text NOT NULL,
  full_name_en text NOT NULL,
  slug text NOT NULL,
  level text NOT NULL CHECK (level IN ('tinh', 'thanh-pho')),
  area_km2 double precision,
  min_lng double precision,
  min_lat double precision,
  max_lng double precision,
  max_lat double precision,
  -- GeoJSON geometry; json (not jsonb) keeps the text as shipped and is cheap to hand back whole.
  geometry json,
  mapping_code text,
  mapping_full_name text,
  mapping_notes text[] NOT NULL DEFAULT '{}'
);

CREATE TABLE IF NOT EXISTS admin_wards (
  code text PRIMARY KEY,
  id text GENERATED ALWAYS AS ('xa_' || code) STORED UNIQUE,
  province_code text NOT NULL REFERENCES admin_provinces (code),
  name text NOT NULL,
  name_en text NOT NULL,
  full_name text NOT NULL,
  full_name_en text NOT NULL,
  slug text NOT NULL,
  level text NOT NULL CHECK (level IN ('phuong', 'xa', 'dac-khu')),
  area_km2 double precision,
  min_lng double precision,
  min_lat double precision,
  max_lng double precision,
  max_lat double precision,
  geometry json,
  mapping_code text,
  mapping_full_name text,
  mapping_notes text[] NOT NULL DEFAULT '{}'
);

-- The 63 provinces and the communes (plus five commune-less island districts) before 1 July 2025.
CREATE TABLE IF NOT EXISTS admin_legacy_provinces (
  code text PRIMARY KEY,
  id text GENERATED ALWAYS AS ('tinhcu_' || code) STORED UNIQUE,
  name text NOT NULL,
  full_name text NOT NULL,
  level text NOT NULL CHECK (level IN ('tinh', 'thanh-pho'))
);

CREATE TABLE IF NOT EXISTS admin_legacy_wards (
  code text PRIMARY KEY,
  id text GENERATED ALWAYS AS ('xacu_' || code) STORED UNIQUE,
  province_code text NOT NULL REFERENCES admin_legacy_provinces (code),
  name text NOT NULL,
  full_name text NOT NULL,
  level text NOT NULL CHECK (level IN ('phuong', 'xa', 'thi-tran', 'huyen'))
);

-- Old unit → new unit, wholly ('full') or in part ('partial'); mapping_code is the new code as the
-- 2025 mapping gave it (it differs from new_code where the code changed afterwards).
CREATE TABLE IF NOT EXISTS admin_province_links (
  old_code text NOT NULL REFERENCES admin_legacy_provinces (code),
  new_code text NOT NULL REFERENCES admin_provinces (code),
  coverage text NOT NULL CHECK (coverage IN ('full', 'partial')),
  mapping_code text NOT NULL,
  PRIMARY KEY (old_code, new_code)
);
CREATE INDEX IF NOT EXISTS admin_province_links_new ON admin_province_links (new_code, old_code);

CREATE TABLE IF NOT EXISTS admin_ward_links (
  old_code text NOT NULL REFERENCES admin_legacy_wards (code),
  new_code text NOT NULL REFERENCES admin_wards (code),
  coverage text NOT NULL CHECK (coverage IN ('full', 'partial')),
  mapping_code text NOT NULL,
  PRIMARY KEY (old_code, new_code)
);
CREATE INDEX IF NOT EXISTS admin_ward_links_new ON admin_ward_links (new_code, old_code);

-- Boundary datasets have their own ids (rgtinh_, rgxa_) over the same rows.
CREATE UNIQUE INDEX IF NOT EXISTS admin_provinces_boundary_id ON admin_provinces (('rgtinh_' || code));
CREATE UNIQUE INDEX IF NOT EXISTS admin_wards_boundary_id ON admin_wards (('rgxa_' || code));
CREATE INDEX IF NOT EXISTS admin_wards_province ON admin_wards (province_code, code);
CREATE INDEX IF NOT EXISTS admin_legacy_wards_province ON admin_legacy_wards (province_code, code);
-- Keyword search (kit "words" mode): the same folded expressions the kit generates.
CREATE INDEX IF NOT EXISTS admin_wards_name_trgm ON admin_wards USING gin (lower(public.f_unaccent(full_name)) public.gin_trgm_ops);
CREATE INDEX IF NOT EXISTS admin_legacy_wards_name_trgm ON admin_legacy_wards USING gin (lower(public.f_unaccent(full_name)) public.gin_trgm_ops);

-- One row once the files are loaded; options holds the reconciliation counts (see docs/admin-units.md).
CREATE TABLE IF NOT EXISTS admin_units_seed_state (id int PRIMARY KEY, seeded_at timestamptz NOT NULL DEFAULT now(), options jsonb NOT NULL);
