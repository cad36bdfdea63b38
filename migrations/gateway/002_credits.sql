-- Purchased extra calls. The balance row is the one thing spends contend on; the ledger is the
-- audit trail and, through its unique keys, what makes purchases, spends and refunds idempotent.
-- No foreign key to accounts: this migration must not depend on the order of the others.

CREATE TABLE IF NOT EXISTS credit_balances (
  account_id text PRIMARY KEY,
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS credit_ledger (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('purchase', 'spend', 'refund')),
  amount bigint NOT NULL CHECK (amount > 0),
  -- purchases carry the billing reference; spends and refunds the request id they settle
  reference text,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'purchase') = (reference IS NOT NULL)),
  CHECK ((kind = 'purchase') = (request_id IS NULL)),
  -- NULLs are distinct, so each constraint only ever binds the rows that carry its column
  CONSTRAINT credit_ledger_reference_once UNIQUE (account_id, kind, reference),
  CONSTRAINT credit_ledger_request_once UNIQUE (account_id, kind, request_id)
);

CREATE INDEX IF NOT EXISTS credit_ledger_account_time ON credit_ledger (account_id, created_at);
