import type { Queryable } from '../db/db';
import type { Account, AccountPatch, ApiKeyRecord } from './account-types';
import { isoOrNull } from '../util/iso-time';

interface AccountRow {
  id: string;
  email: string;
  plan: string;
  email_verified: boolean;
  restricted_until: Date | string | null;
  created_at: Date | string;
}
interface KeyRow {
  id: string;
  account_id: string;
  key_prefix: string;
  ip_allowlist: string[] | null;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
  created_at: Date | string;
}

const ms = (v: Date | string | null): number | null => (v === null ? null : new Date(v).getTime());

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  plan: r.plan,
  email_verified: r.email_verified,
  restricted_until: ms(r.restricted_until),
  created_at: ms(r.created_at) ?? 0,
});
const toKey = (r: KeyRow): ApiKeyRecord => ({
  id: r.id,
  account_id: r.account_id,
  key_prefix: r.key_prefix,
  ip_allowlist: r.ip_allowlist ?? [],
  expires_at: ms(r.expires_at),
  revoked_at: ms(r.revoked_at),
  created_at: ms(r.created_at) ?? 0,
});

const ACCOUNT_COLS = 'id, email, plan, email_verified, restricted_until, created_at';
const KEY_COLS = 'id, account_id, key_prefix, ip_allowlist, expires_at, revoked_at, created_at';

/** Accounts and keys in PostgreSQL or PGlite (same SQL). */
export class AccountRepo {
  constructor(private readonly db: Queryable) {}

  async createAccount(a: {
    id: string;
    email: string;
    plan: string;
    email_verified: boolean;
  }): Promise<Account> {
    const r = await this.db.query<AccountRow>(
      `INSERT INTO accounts (id, email, plan, email_verified) VALUES ($1, $2, $3, $4) RETURNING ${ACCOUNT_COLS}`,
      [a.id, a.email, a.plan, a.email_verified],
    );
    return toAccount(r.rows[0]!);
  }

  async getAccount(id: string): Promise<Account | undefined> {
    const r = await this.db.query<AccountRow>(`SELECT ${ACCOUNT_COLS} FROM accounts WHERE id = $1`, [id]);
    return r.rows[0] && toAccount(r.rows[0]);
  }

  /** Accounts with one of these e-mails, oldest first. */
  async accountsByEmail(emails: readonly string[]): Promise<Account[]> {
    const r = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLS} FROM accounts WHERE email = ANY($1::text[]) ORDER BY created_at, id`,
      [emails],
    );
    return r.rows.map(toAccount);
  }

  /** The account of an e-mail, in any case (the unique index is on lower(email)). */
  async accountByEmail(email: string): Promise<Account | undefined> {
    const r = await this.db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLS} FROM accounts WHERE lower(email) = lower($1)`,
      [email],
    );
    return r.rows[0] && toAccount(r.rows[0]);
  }

  async countAccounts(): Promise<number> {
    const r = await this.db.query<{ n: string | number }>('SELECT count(*) AS n FROM accounts');
    return Number(r.rows[0]?.n ?? 0);
  }

  /** How many accounts are on each plan (a plan none is on is left out). */
  async accountsByPlan(): Promise<Map<string, number>> {
    const r = await this.db.query<{ plan: string; n: string | number }>(
      'SELECT plan, count(*) AS n FROM accounts GROUP BY plan ORDER BY plan',
    );
    return new Map(r.rows.map((row) => [row.plan, Number(row.n)]));
  }

  async patchAccount(id: string, p: AccountPatch): Promise<Account | undefined> {
    const sets: string[] = [];
    const vals: unknown[] = [id];
    if (p.plan !== undefined) sets.push(`plan = $${vals.push(p.plan)}`);
    if (p.email_verified !== undefined) sets.push(`email_verified = $${vals.push(p.email_verified)}`);
    if (p.restricted_until !== undefined)
      sets.push(`restricted_until = $${vals.push(isoOrNull(p.restricted_until))}`);
    if (sets.length === 0) return this.getAccount(id);
    const r = await this.db.query<AccountRow>(
      `UPDATE accounts SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING ${ACCOUNT_COLS}`,
      vals,
    );
    return r.rows[0] && toAccount(r.rows[0]);
  }

  /** Locks an account that is not locked now; false when it already was (so one lock is logged once). */
  async lockUntil(id: string, untilMs: number, nowMs: number): Promise<boolean> {
    const r = await this.db.query<{ id: string }>(
      `UPDATE accounts SET restricted_until = $2, updated_at = now()
        WHERE id = $1 AND (restricted_until IS NULL OR restricted_until <= $3) RETURNING id`,
      [id, isoOrNull(untilMs), isoOrNull(nowMs)],
    );
    return r.rows.length > 0;
  }

  async createKey(k: {
    id: string;
    account_id: string;
    key_hash: string;
    key_prefix: string;
    ip_allowlist: string[];
    expires_at: number | null;
  }): Promise<ApiKeyRecord> {
    const r = await this.db.query<KeyRow>(
      `INSERT INTO api_keys (id, account_id, key_hash, key_prefix, ip_allowlist, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLS}`,
      [k.id, k.account_id, k.key_hash, k.key_prefix, k.ip_allowlist, isoOrNull(k.expires_at)],
    );
    return toKey(r.rows[0]!);
  }

  async listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const r = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`,
      [accountId],
    );
    return r.rows.map(toKey);
  }

  /** Marks a key revoked; returns it with its hash so caches everywhere can drop it. */
  async revokeKey(id: string): Promise<{ key: ApiKeyRecord; key_hash: string } | undefined> {
    const r = await this.db.query<KeyRow & { key_hash: string }>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 RETURNING ${KEY_COLS}, key_hash`,
      [id],
    );
    const row = r.rows[0];
    return row && { key: toKey(row), key_hash: row.key_hash };
  }

  /** The one query of key authentication, run only on a key-cache miss. */
  async findByKeyHash(
    hash: string,
  ): Promise<{ key: ApiKeyRecord; account: Account; key_hash: string } | undefined> {
    const r = await this.db.query<
      KeyRow & {
        key_hash: string;
        a_email: string;
        a_plan: string;
        a_email_verified: boolean;
        a_restricted_until: Date | string | null;
        a_created_at: Date | string;
      }
    >(
      `SELECT k.id, k.account_id, k.key_prefix, k.ip_allowlist, k.expires_at, k.revoked_at, k.created_at, k.key_hash,
              a.email AS a_email, a.plan AS a_plan, a.email_verified AS a_email_verified,
              a.restricted_until AS a_restricted_until, a.created_at AS a_created_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
      [hash],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    return {
      key: toKey(row),
      key_hash: row.key_hash,
      account: toAccount({
        id: row.account_id,
        email: row.a_email,
        plan: row.a_plan,
        email_verified: row.a_email_verified,
        restricted_until: row.a_restricted_until,
        created_at: row.a_created_at,
      }),
    };
  }
}
