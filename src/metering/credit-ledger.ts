import { DatabaseUnavailableError } from '../db/db';
import type { Db, Queryable } from '../db/db';
import { createRetryKeeper } from '../util/retry-keeper';
import type { RetryKeeper } from '../util/retry-keeper';

/** Purchased extra calls (extra_credits), drawn once the monthly quota is spent. */
export interface CreditLedger {
  balance(accountId: string): Promise<number>;
  /**
   * Adds credits once per (account, reference); a repeat returns the balance with applied false and
   * the amount the reference was first applied with (a different one is the caller's to refuse).
   */
  purchase(
    accountId: string,
    amount: number,
    reference: string,
  ): Promise<{ balance: number; applied: boolean; appliedAmount: number }>;
  /** The purchase made with this reference, if any, and the balance now (a retry's answer). */
  purchased(accountId: string, reference: string): Promise<{ amount: number; balance: number } | undefined>;
  /**
   * Takes cost credits for a request, atomically, never below zero. Idempotent per (account,
   * requestId): a repeat returns ok without taking again, so requestId must be one the gateway
   * generated (a client-chosen X-Request-Id would let a client replay one paid spend).
   */
  spend(accountId: string, cost: number, requestId: string): Promise<{ ok: boolean; balance: number }>;
  /**
   * Gives back what that request spent; nothing if it spent nothing; once at most. When the
   * database cannot take it now, it is kept and given later (and resolves).
   */
  refundSpend(accountId: string, requestId: string, reqId?: string): Promise<void>;
}

/** A refund of a spend: the account and the gateway's id of the request that spent. */
export interface SpendRef {
  accountId: string;
  requestId: string;
  /** The request's X-Request-Id, for the log lines of a refund kept or given up. */
  reqId?: string;
}

export interface SqlCreditLedgerOptions {
  /** A refund the database could not take now: kept, and given when it answers. */
  onRefundKept?: (ref: SpendRef, cause: unknown) => void;
  /** A kept refund given up (too many kept, or refused for good): the credit stays spent. */
  onRefundLost?: (ref: SpendRef, cause: unknown) => void;
}

/** Thrown inside the spend transaction to roll back its ledger row. */
class InsufficientCredits extends Error {}

/** CreditLedger over migrations/gateway/002_credits.sql; the same SQL on PostgreSQL and PGlite. */
export class SqlCreditLedger implements CreditLedger {
  private readonly kept: RetryKeeper<SpendRef>;

  constructor(
    private readonly db: Db,
    private readonly opts: SqlCreditLedgerOptions = {},
  ) {
    this.kept = createRetryKeeper<SpendRef>({
      key: (r) => `${r.accountId} ${r.requestId}`,
      run: (r) => this.giveBack(r),
      transient: (err) => err instanceof DatabaseUnavailableError,
      onKept: opts.onRefundKept,
      onLost: opts.onRefundLost,
    });
  }

  /** Refunds kept for the database, not yet given. */
  keptRefunds(): number {
    return this.kept.size();
  }

  /** One last try of the kept refunds; those left are reported lost. The database is the caller's. */
  close(): Promise<void> {
    return this.kept.close();
  }

  balance(accountId: string): Promise<number> {
    return readBalance(this.db, accountId);
  }

  async purchase(
    accountId: string,
    amount: number,
    reference: string,
  ): Promise<{ balance: number; applied: boolean; appliedAmount: number }> {
    assertAmount(amount);
    if (reference.length === 0) throw new RangeError('a purchase needs a reference');
    return await this.db.transaction(async (tx) => {
      const added = await tx.query(
        `INSERT INTO credit_ledger (account_id, kind, amount, reference) VALUES ($1, 'purchase', $2, $3)
         ON CONFLICT (account_id, kind, reference) DO NOTHING RETURNING id`,
        [accountId, amount, reference],
      );
      if (added.rows.length === 0) {
        const first = await tx.query<{ amount: unknown }>(
          `SELECT amount FROM credit_ledger WHERE account_id = $1 AND kind = 'purchase' AND reference = $2`,
          [accountId, reference],
        );
        const appliedAmount = Number(first.rows[0]?.amount ?? amount);
        return { balance: await readBalance(tx, accountId), applied: false, appliedAmount };
      }
      const row = await tx.query<{ balance: unknown }>(
        `INSERT INTO credit_balances (account_id, balance) VALUES ($1, $2)
         ON CONFLICT (account_id) DO UPDATE SET balance = credit_balances.balance + EXCLUDED.balance, updated_at = now()
         RETURNING balance`,
        [accountId, amount],
      );
      return { balance: Number(row.rows[0]?.balance ?? 0), applied: true, appliedAmount: amount };
    });
  }

  async purchased(
    accountId: string,
    reference: string,
  ): Promise<{ amount: number; balance: number } | undefined> {
    const first = await this.db.query<{ amount: unknown }>(
      `SELECT amount FROM credit_ledger WHERE account_id = $1 AND kind = 'purchase' AND reference = $2`,
      [accountId, reference],
    );
    const row = first.rows[0];
    return row ? { amount: Number(row.amount), balance: await readBalance(this.db, accountId) } : undefined;
  }

  async spend(accountId: string, cost: number, requestId: string): Promise<{ ok: boolean; balance: number }> {
    assertAmount(cost);
    try {
      return await this.db.transaction(async (tx) => {
        // The ledger row first: its unique key is what turns a repeated spend into a no-op.
        const recorded = await tx.query(
          `INSERT INTO credit_ledger (account_id, kind, amount, request_id) VALUES ($1, 'spend', $2, $3)
           ON CONFLICT (account_id, kind, request_id) DO NOTHING RETURNING id`,
          [accountId, cost, requestId],
        );
        if (recorded.rows.length === 0) return { ok: true, balance: await readBalance(tx, accountId) };
        // The row lock serialises concurrent spends; the condition is re-checked after the wait.
        const row = await tx.query<{ balance: unknown }>(
          `UPDATE credit_balances SET balance = balance - $2, updated_at = now()
           WHERE account_id = $1 AND balance >= $2 RETURNING balance`,
          [accountId, cost],
        );
        if (row.rows.length === 0) throw new InsufficientCredits();
        return { ok: true, balance: Number(row.rows[0]?.balance ?? 0) };
      });
    } catch (err) {
      if (!(err instanceof InsufficientCredits)) throw err;
      return { ok: false, balance: await readBalance(this.db, accountId) };
    }
  }

  async refundSpend(accountId: string, requestId: string, reqId?: string): Promise<void> {
    const ref: SpendRef = { accountId, requestId, ...(reqId !== undefined ? { reqId } : {}) };
    try {
      await this.giveBack(ref);
    } catch (err) {
      if (!(err instanceof DatabaseUnavailableError)) throw err;
      this.kept.keep(ref, err);
    }
  }

  /** The refund itself: idempotent, so a kept one may run again after a try whose answer was lost. */
  private async giveBack({ accountId, requestId }: SpendRef): Promise<void> {
    await this.db.transaction(async (tx) => {
      // A spend whose COMMIT is on its way holds this row: waiting for it makes its ledger row
      // visible below, so a refund for a lost answer does not find nothing and leave it spent.
      await tx.query('SELECT 1 FROM credit_balances WHERE account_id = $1 FOR UPDATE', [accountId]);
      const refunded = await tx.query<{ amount: unknown }>(
        `INSERT INTO credit_ledger (account_id, kind, amount, request_id)
         SELECT account_id, 'refund', amount, request_id FROM credit_ledger
         WHERE account_id = $1 AND kind = 'spend' AND request_id = $2
         ON CONFLICT (account_id, kind, request_id) DO NOTHING RETURNING amount`,
        [accountId, requestId],
      );
      const amount = refunded.rows[0]?.amount;
      if (amount === undefined) return;
      await tx.query(
        'UPDATE credit_balances SET balance = balance + $2, updated_at = now() WHERE account_id = $1',
        [accountId, Number(amount)],
      );
    });
  }
}

async function readBalance(q: Queryable, accountId: string): Promise<number> {
  const r = await q.query<{ balance: unknown }>('SELECT balance FROM credit_balances WHERE account_id = $1', [
    accountId,
  ]);
  return Number(r.rows[0]?.balance ?? 0);
}

function assertAmount(n: number): void {
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new RangeError(`credit amount must be a positive integer, got ${n}`);
}
