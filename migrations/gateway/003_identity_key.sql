-- The key every gateway replica signs upstream identity assertions with, so that the JWKS any
-- replica serves verifies the assertions of all of them, and of the same replica after a restart.
-- One row; the first replica to start makes it, the others read it.

CREATE TABLE IF NOT EXISTS identity_signing_key (
  id text PRIMARY KEY CHECK (id = 'current'),
  kid text NOT NULL,
  private_jwk text NOT NULL,
  public_jwk text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
