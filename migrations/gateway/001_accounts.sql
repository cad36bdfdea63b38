-- Accounts and their API keys. Keys are stored only as SHA-256 hashes; the key itself is shown once.
CREATE TABLE IF NOT EXISTS accounts (
  id               text PRIMARY KEY,
  email            text NOT NULL,
  plan             text NOT NULL,
  email_verified   boolean NOT NULL DEFAULT false,
  restricted_until timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX IF NOT EXISTS accounts_email_idx ON accounts (lower(email));

CREATE TABLE IF NOT EXISTS api_keys (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts (id),
  key_hash      text NOT NULL UNIQUE,
  key_prefix    text NOT NULL,
  ip_allowlist  text[] NOT NULL DEFAULT '{}',
  expires_at    timestamptz,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS api_keys_account_idx ON api_keys (account_id);
